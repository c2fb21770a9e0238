# Copyright 2020 Huawei Technologies Co., Ltd
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ============================================================================
"""
@File   : ut_filter.py
@Desc   : filter for ge or gpu
"""

import os
import pytest

def is_enable_ge():
    return False

non_graph_engine = pytest.mark.skipif(is_enable_ge(), reason="Not support running on GE environment")

def is_enable_gpu():
    val = os.getenv("ENABLE_GPU", "False")
    if val in ('ON', 'on', 'TRUE', 'True', 'true'):
        return True
    return False


run_on_gpu = pytest.mark.skipif(not is_enable_gpu(), reason="Only support running on GPU environment")


def is_enable_onnxruntime():
    val = os.getenv("ENABLE_ONNXRUNTIME", "False")
    if val in ('ON', 'on', 'TRUE', 'True', 'true'):
        return True
    return False


run_on_onnxruntime = pytest.mark.skipif(not is_enable_onnxruntime(), reason="Only support running on onnxruntime")
