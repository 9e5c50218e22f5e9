package org.kotlinllm.script.runtime

/**
 * Thrown into a cancelled snippet whose thread ignored the interrupt (a loop inside JDK or library code), where that
 * thread runs: a host stops it with the JVM tool interface's StopThread (see `host.StopTarget`). An [Error], so that
 * `catch (e: Exception)` lets it through; public only because snippets may catch it.
 */
public class SnippetInterruptedError(message: String) : Error(message)
