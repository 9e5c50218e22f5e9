"""papermill support: the ``papermill.engine`` entry point that registers the Kotlin parameter translator, the
translator, and Python values written as Kotlin literals. At the side of the layers: it may import any of them (it
needs none today) and nothing in the package imports it; papermill loads it through the entry point."""
