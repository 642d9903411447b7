"""Exercise 18 (stage 09): an empty reply is a stop reason too.

Models sometimes end a turn with nothing: no text, no tool call. Showing the user a blank
answer is the worst outcome, and the usual cure is simply to ask again. `final_answer`
asks for the turn's final answer (no tools offered). If the reply is blank (empty, or
only whitespace), it asks once more, with NUDGE added to the end of the system prompt
after a blank line, sending the same messages. It returns (the text, "completed"), or
("", "empty") when the second reply is blank too.

    final_answer(provider, messages, "Be brief.")   # -> ("It is noon.", "completed")
"""

NUDGE = "Your last reply was empty. Answer the user now, in plain text."  # Don't change this line


def final_answer(provider, messages: list[dict], system: str) -> tuple[str, str]:
    """(the answer, "completed"), or ("", "empty") after two blank replies."""
    # TODO: provider.call(messages, system) returns a Reply; .text.strip() tells blank
    raise NotImplementedError("exercise 18: final_answer")
