package org.kotlinllm.script.internal.compiler.hints

import java.io.DataInputStream
import java.io.InputStream

/**
 * A method of a class file that code can call: [static] or not, [inlineOnly] for a Kotlin `@InlineOnly` function
 * (private in the class file, public in Kotlin: `kotlin.io.path.exists`).
 */
internal class ClassMethod(val name: String, val descriptor: String, val static: Boolean, val inlineOnly: Boolean)

/**
 * Reads just enough of a class file, without loading its class: whether the class is public, and the methods that
 * Kotlin code may call (public ones, and the private `@InlineOnly` ones of the standard library; none deprecated at
 * the level `ERROR` or `HIDDEN`), for the names of a Kotlin file facade (`PathsKt`, `CollectionsKt___CollectionsKt`)
 * or of a companion object.
 */
internal object ClassFiles {
    private const val PUBLIC = 0x0001
    private const val PRIVATE = 0x0002
    private const val STATIC = 0x0008
    private const val BRIDGE = 0x0040
    private const val SYNTHETIC = 0x1000
    private const val INLINE_ONLY = "Lkotlin/internal/InlineOnly;"
    private const val INVISIBLE_ANNOTATIONS = "RuntimeInvisibleAnnotations"
    private const val VISIBLE_ANNOTATIONS = "RuntimeVisibleAnnotations"
    private const val DEPRECATED = "Lkotlin/Deprecated;"
    private const val PROPERTY_ANNOTATIONS = "\$annotations"
    private val FORBIDDING_LEVELS = setOf("ERROR", "HIDDEN")

    /** Whether the class file in [input] declares a public class. */
    fun isPublic(input: InputStream): Boolean {
        val data = DataInputStream(input.buffered())
        if (data.readInt() != MAGIC) return false
        data.readUnsignedShort()
        data.readUnsignedShort()
        readConstantPool(data)
        return (data.readUnsignedShort() and PUBLIC) != 0
    }

    /** The methods Kotlin code may call of the class file in [input]; empty for what is not a class file. */
    fun callables(input: InputStream): List<ClassMethod> {
        val data = DataInputStream(input.buffered())
        if (data.readInt() != MAGIC) return emptyList()
        data.readUnsignedShort()
        data.readUnsignedShort()
        val strings = readConstantPool(data)
        data.readUnsignedShort() // access flags
        data.readUnsignedShort() // this class
        data.readUnsignedShort() // super class
        repeat(data.readUnsignedShort()) { data.readUnsignedShort() } // interfaces
        repeat(data.readUnsignedShort()) { readMember(data, strings) } // fields
        val members = List(data.readUnsignedShort()) { readMember(data, strings) }
        // a property's annotations are on a synthetic `getName$annotations` method, not on its getter
        val properties = members.mapNotNull { member ->
            strings[member.name]?.takeIf { it.endsWith(PROPERTY_ANNOTATIONS) }?.removeSuffix(PROPERTY_ANNOTATIONS)?.let { it to member }
        }.toMap()
        val methods = mutableListOf<ClassMethod>()
        for (member in members) {
            val access = member.access
            val name = strings[member.name] ?: continue
            val descriptor = strings[member.descriptor] ?: continue
            val property = properties[name]
            val inlineOnly = (access and PRIVATE) != 0 && (member.inlineOnly || property?.inlineOnly == true)
            val forbidden = member.forbidden || property?.forbidden == true
            val callable = ((access and PUBLIC) != 0 || inlineOnly) && (access and (BRIDGE or SYNTHETIC)) == 0 && !forbidden
            if (callable && !name.startsWith("<") && !name.endsWith(PROPERTY_ANNOTATIONS)) {
                methods += ClassMethod(name, descriptor, (access and STATIC) != 0, inlineOnly)
            }
        }
        return methods
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

    /**
     * A field or method: its access flags, the constant pool indexes of its name and descriptor, whether it is
     * `@InlineOnly`, and whether it is [forbidden]: deprecated at the level `ERROR` or `HIDDEN`, so no code may call it.
     */
    private class Member(val access: Int, val name: Int, val descriptor: Int, val inlineOnly: Boolean, val forbidden: Boolean)

    private fun readMember(data: DataInputStream, strings: Map<Int, String>): Member {
        val access = data.readUnsignedShort()
        val name = data.readUnsignedShort()
        val descriptor = data.readUnsignedShort()
        var inlineOnly = false
        var forbidden = false
        repeat(data.readUnsignedShort()) {
            val attribute = strings[data.readUnsignedShort()]
            val bytes = ByteArray(data.readInt())
            data.readFully(bytes)
            if (attribute == INVISIBLE_ANNOTATIONS || attribute == VISIBLE_ANNOTATIONS) {
                val annotations = annotations(bytes, strings)
                inlineOnly = inlineOnly || INLINE_ONLY in annotations
                forbidden = forbidden || annotations[DEPRECATED]?.get("level") in FORBIDDING_LEVELS
            }
        }
        return Member(access, name, descriptor, inlineOnly, forbidden)
    }

    /** The annotations of an annotations attribute's [bytes]: their types (descriptors) to their enum-valued elements. */
    private fun annotations(bytes: ByteArray, strings: Map<Int, String>): Map<String, Map<String, String>> {
        val data = DataInputStream(bytes.inputStream())
        val found = HashMap<String, Map<String, String>>()
        repeat(data.readUnsignedShort()) {
            val type = strings[data.readUnsignedShort()].orEmpty()
            val enums = HashMap<String, String>()
            repeat(data.readUnsignedShort()) {
                val element = strings[data.readUnsignedShort()].orEmpty()
                readElementValue(data, strings)?.let { enums[element] = it }
            }
            found[type] = enums
        }
        return found
    }

    /** Reads an element value: an enum constant's name is returned, anything else skipped. */
    private fun readElementValue(data: DataInputStream, strings: Map<Int, String>): String? {
        when (data.readUnsignedByte().toChar()) {
            'e' -> {
                data.readUnsignedShort() // the enum's type
                return strings[data.readUnsignedShort()]
            }
            '@' -> {
                data.readUnsignedShort() // the nested annotation's type
                repeat(data.readUnsignedShort()) {
                    data.readUnsignedShort()
                    readElementValue(data, strings)
                }
            }
            '[' -> repeat(data.readUnsignedShort()) { readElementValue(data, strings) }
            else -> data.skipNBytes(2) // a constant's or a class's index
        }
        return null
    }

    private const val MAGIC = 0xCAFEBABE.toInt()
}
