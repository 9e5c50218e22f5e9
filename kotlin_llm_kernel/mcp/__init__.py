"""The MCP server (``kotlin-llm-mcp``, ``python -m kotlin_llm_kernel.mcp``): Kotlin as tools an agent calls over the
Model Context Protocol, on the Python API (no Jupyter server). Needs the ``mcp`` extra. At the side of the layers: it
may import any of them (it uses the root's Python API, ``session.results`` and ``jvm``'s immediate exit), and nothing
in the package imports it.
"""
