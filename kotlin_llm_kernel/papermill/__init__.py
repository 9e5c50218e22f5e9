"""papermill support: the ``papermill.engine`` entry point that registers the Kotlin parameter translator, the
translator, and Python values written as Kotlin literals. At the side of the layers: it may import any of them (it
imports only ``session.kotlin_strings``, which is pure) and nothing in the package imports it; papermill loads it
through the entry point."""
