"""The kernel's settings: the ``KotlinKernel`` traitlets, read once from the config files and arguments, and the
immutable request a session and its JVM start with. It may import ``jvm`` (the JVM's default options, heap sizes
and request); never ``session``, ``jupyter``, the package's root, ``papermill`` or ``remote``."""
