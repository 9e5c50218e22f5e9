package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition

/** Placeholder until the descriptor reader lands. */
internal object LibraryDescriptorsPending {
    fun parse(text: String, options: Map<String, String>): LibraryDefinition =
        throw UnsupportedOperationException("library descriptors are not read yet")
}
