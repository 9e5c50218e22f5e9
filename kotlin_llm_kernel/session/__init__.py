"""A Kotlin session in this process, for any host (the Jupyter kernel, the Python API): the bridge to the engine's
Java objects (the only code that calls them), its events and results, the run policy of a snippet (``policy``), the
early start of the JVM and the session, the run that trains the class-data sharing archive, and text as Kotlin
string literals for the source a host writes. It may import ``config`` and ``jvm``; never ``jupyter``, the Python
API at the package's root, ``papermill`` or ``remote``."""
