"""The Jupyter kernel: ipykernel's application and the ``KotlinKernel`` class, and what only a Jupyter host needs
(checks of a request's content, which cell an output goes under, the stdin channel, ``is_complete``, the streams,
the message packer). It runs a session (:mod:`kotlin_llm_kernel.session`) and may import that layer, ``config`` and
``jvm``; never the Python API at the package's root, ``papermill`` or ``remote``."""
