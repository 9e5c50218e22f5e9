package org.kotlinllm.script.internal.compiler.hints

import java.io.DataInputStream
import java.io.InputStream

/** A public static method of a class file: a top-level function or property accessor of a Kotlin file facade. */
internal class StaticMethod(val name: String, val descriptor: String)

/**
 * Reads just enough of a class file to list the public static methods of a Kotlin file facade (`PathsKt`,
 * `CollectionsKt___CollectionsKt`), without loading the class: its constant pool, then its fields and methods.
 */
internal object ClassFiles {
    private const val PUBLIC = 0x0001
    private const val STATIC = 0x0008
    private const val BRIDGE = 0x0040
    private const val SYNTHETIC = 0x1000

    /** The public static, non-synthetic methods of the class file in [input]; empty for what is not a class file. */
    fun staticMethods(input: InputStream): List<StaticMethod> {
        val data = DataInputStream(input.buffered())
        if (data.readInt() != MAGIC) return emptyList()
        data.readUnsignedShort()
        data.readUnsignedShort()
        val strings = readConstantPool(data)
        data.readUnsignedShort() // access flags
        data.readUnsignedShort() // this class
        data.readUnsignedShort() // super class
        repeat(data.readUnsignedShort()) { data.readUnsignedShort() } // interfaces
        repeat(data.readUnsignedShort()) { readMember(data) } // fields
        val methods = mutableListOf<StaticMethod>()
        repeat(data.readUnsignedShort()) {
            val (access, name, descriptor) = readMember(data)
            val wanted = (access and (PUBLIC or STATIC)) == (PUBLIC or STATIC) && (access and (BRIDGE or SYNTHETIC)) == 0
            val nameText = strings[name]
            val descriptorText = strings[descriptor]
            if (wanted && nameText != null && descriptorText != null) methods += StaticMethod(nameText, descriptorText)
        }
        return methods
    }

    /** Whether the class file in [input] declares a public class. */
    fun isPublic(input: InputStream): Boolean {
        val data = DataInputStream(input.buffered())
        if (data.readInt() != MAGIC) return false
        data.readUnsignedShort()
        data.readUnsignedShort()
        readConstantPool(data)
        return data.readUnsignedShort() and PUBLIC != 0
    }

    /** The UTF-8 entries of the constant pool by index; the other entries are skipped. */
    private fun readConstantPool(data: DataInputStream): Map<Int, String> {
        val count = data.readUnsignedShort()
        val strings = HashMap<Int, String>()
        var index = 1
        while (index < count) {
            when (val tag = data.readUnsignedByte()) {
                1 -> strings[index] = data.readUTF()
                3, 4, 9, 10, 11, 12, 17, 18 -> data.skipNBytes(4)
                5, 6 -> {
                    data.skipNBytes(8)
                    index++ // a long or a double takes two entries
                }
                7, 8, 16, 19, 20 -> data.skipNBytes(2)
                15 -> data.skipNBytes(3)
                else -> error("constant pool tag $tag")
            }
            index++
        }
        return strings
    }

    /** A field or method: its access flags and the constant pool indexes of its name and descriptor. */
    private fun readMember(data: DataInputStream): Triple<Int, Int, Int> {
        val member = Triple(data.readUnsignedShort(), data.readUnsignedShort(), data.readUnsignedShort())
        repeat(data.readUnsignedShort()) {
            data.readUnsignedShort()
            data.skipNBytes(data.readInt().toLong())
        }
        return member
    }

    private const val MAGIC = 0xCAFEBABE.toInt()
}
