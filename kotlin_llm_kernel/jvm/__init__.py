"""The embedded JVM: the Java runtime to use, the JVM's command line (the engine's jars, the default options of
``jvm.properties``, the heap limit), its start with JPype once per process, class-data sharing archives, and the
process's malloc arenas. The bottom layer: it imports nothing else of the package (what a process making an archive
runs in the JVM is given to :mod:`.cds` by its caller)."""
