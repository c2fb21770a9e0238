"""Stand-in written by minims' tools/extract_mindspore_sources.py: MindSpore's file only runs
``from ...vm_impl import vm`` (its internal debug VM's primitive registry, private modules), which
none of the stored tests uses."""
