"""What the JVM that makes a class-data sharing archive runs before it writes it (``python -m kotlin_llm_kernel.cds``):
a session compiling the kinds of snippets a first session compiles, so that the classes they need are in the
archive. The JVM layer starts and destroys that JVM (:func:`kotlin_llm_kernel.jvm.cds.dump`) and is given
:func:`train` to run in between.
"""

from __future__ import annotations

from ..config.request import SessionRequest
from .bridge import EngineSession
from .events import SnippetWaiter

#: What the helper runs: the kinds of snippets a first session compiles (expressions, declarations, output,
#: failures), so that the classes they need are in the archive.
TRAINING_SNIPPETS = (
    "1 + 1",
    "fun trainingFun(x: Int): Int = x * 2 + 1\ntrainingFun(3)",
    "class TrainingClass(val x: Int) { fun twice() = x * 2 }\nTrainingClass(2).twice()",
    "data class TrainingData(val name: String, val values: List<Int>)\n"
    'TrainingData("a", listOf(1, 2, 3)).values.map { it * 2 }.filter { it > 2 }.sum()',
    'val trainingMap = mapOf("a" to 1, "b" to 2)\nprintln(trainingMap)\nSystem.err.println("err")',
    '"text ${1 + 2}".uppercase()',
    "asdf\nprintln(foo)",
    'error("training")',
)


def train() -> None:
    """Runs :data:`TRAINING_SNIPPETS` in a session of the started JVM, then closes the session."""
    session = EngineSession(SessionRequest(properties={"trainingProperty": "value"}))
    waiter = SnippetWaiter(session)
    for code in TRAINING_SNIPPETS:
        waiter.wait(session.submit(code).snippet_number)
    session.close()
    waiter.join(timeout=60)  # no thread may be in a Java call while the JVM is destroyed
