// The model, for the JavaScript port: one streamed call to the Anthropic Messages API with
// nothing but Node's own fetch. What shared/providers/anthropic_provider.py does for the
// Python stages: tao's flat messages in, the API's content blocks out; the event stream
// read back into one reply { text, toolCalls, stopReason }.
//
//   ANTHROPIC_API_KEY   the key (tao port-test gives a fake one)
//   ANTHROPIC_BASE_URL  where the API is (tao port-test points it at its fake)
//   TAO_MODEL           which model (default below)

const BASE = (process.env.ANTHROPIC_BASE_URL || "https://api.anthropic.com").replace(/\/+$/, "");
const MODEL = process.env.TAO_MODEL || "claude-sonnet-4-5";
const MAX_TOKENS = 1024;

// tao's messages as the Messages API's: a tool result is a block of a user message, and
// the results of one reply's calls go together, right after it
function toAnthropic(messages) {
  const out = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (m.role === "tool") {
      // tool_result must echo the tool_use id: that is how the API pairs them
      const block = { type: "tool_result", tool_use_id: m.tool_call_id, content: m.content };
      if (last && last.role === "user" && Array.isArray(last.content)) last.content.push(block);
      else out.push({ role: "user", content: [block] });
    } else if (m.role === "assistant" && m.tool_calls && m.tool_calls.length) {
      const blocks = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.tool_calls) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.args });
      out.push({ role: "assistant", content: blocks });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

// the server-sent events of a streamed response, one parsed `data:` payload each
async function* events(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const data = buffer.slice(0, end).split("\n")
        .filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n");
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data);
    }
  }
}

// One model turn: text deltas go to onText as they arrive; the whole reply comes back.
export async function call({ messages, system = "", tools = [], onText = () => {} }) {
  const body = { model: MODEL, max_tokens: MAX_TOKENS, stream: true, messages: toAnthropic(messages) };
  if (system) body.system = system;
  if (tools.length) {
    body.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema }));
  }
  const response = await fetch(`${BASE}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": process.env.ANTHROPIC_API_KEY || "",
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(`the API answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  const reply = { text: "", toolCalls: [], stopReason: "" };
  const blocks = [];
  for await (const event of events(response.body)) {
    if (event.type === "content_block_start") {
      blocks[event.index] = { ...event.content_block, json: "" };
    } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      reply.text += event.delta.text;
      onText(event.delta.text);
    } else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
      blocks[event.index].json += event.delta.partial_json; // arguments arrive in pieces
    } else if (event.type === "message_delta") {
      reply.stopReason = event.delta.stop_reason;
    } else if (event.type === "error") {
      throw new Error(event.error.message);
    }
  }
  for (const block of blocks) {
    if (block && block.type === "tool_use") {
      reply.toolCalls.push({ id: block.id, name: block.name, args: block.json ? JSON.parse(block.json) : {} });
    }
  }
  return reply;
}
