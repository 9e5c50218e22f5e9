package org.kotlinllm.script

/** Completions of the text between [start] and [end] (UTF-16 offsets in the code asked about). */
public class Completion(
    public val matches: List<String>,
    public val start: Int,
    public val end: Int,
)
