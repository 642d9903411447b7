"""Exercise 18 (stage 09): an empty reply is a stop reason too.

Models sometimes end a turn with nothing: no text, no tool call. Showing the user a blank
answer is the worst outcome, and the usual cure is simply to ask again. `final_answer`
asks for the turn's final answer (no tools offered). If the reply is blank (empty, or
only whitespace), it asks once more, with NUDGE added to the end of the system prompt
after a blank line, sending the same messages. It returns (the text, "completed"), or
("", "empty") when the second reply is blank too.

    final_answer(provider, messages, "Be brief.")   # -> ("It is noon.", "completed")
"""

NUDGE = "Your last reply was empty. Answer the user now, in plain text."


def final_answer(provider, messages: list[dict], system: str) -> tuple[str, str]:
    """(the answer, "completed"), or ("", "empty") after two blank replies."""
    reply = provider.call(messages, system)
    if reply.text.strip():
        return reply.text, "completed"
    # the blank reply is not kept: an empty assistant message is refused by both APIs
    retry = provider.call(messages, f"{system}\n\n{NUDGE}")
    return (retry.text, "completed") if retry.text.strip() else ("", "empty")
