from tests.st.pynative.utils.grad import GradOfFirstInput, GradOfAllInputs, GradOfAllInputsAndParams,\
    GradOfAllParams, HighGrad, GradOfDefault, allclose_nparray
__all__ = ['GradOfFirstInput', 'GradOfAllInputs', 'GradOfAllInputsAndParams',
           'GradOfAllParams', 'HighGrad', 'GradOfDefault', 'allclose_nparray']
