// Stage 04 in JavaScript: a tool call as one line of JSON (stages/04_json_tool_call).
//
// The system prompt teaches a protocol: to use a tool, reply with one JSON line. Each reply
// is collected whole, parsed, and if it is a tool call the tool runs once and its result is
// shown. The result is not sent back to the model yet: stage 05 closes that loop.
//
//   node ports/javascript/04_json_tool_call.mjs

import readline from "node:readline";
import { call } from "./model.mjs";

const PERSONA = "You are Tao, a patient guide who explains how programs work.";
const INSTRUCTIONS = `Answer in plain language, in a few sentences.
If you are not sure, say so instead of guessing.`;
const TOOL_INSTRUCTIONS = `You have access to tools. To call a tool, reply with exactly one line of JSON:

    {"tool": "<name>", "args": {<arguments>}}

Available tools:

- \`now\` — return the current UTC time. No arguments.

When you call a tool, do not write anything else. Wait for the tool result, then continue.
When you have nothing left to do, reply with a normal text answer to the user. No JSON.`;
const SYSTEM = `${PERSONA}\n\n${INSTRUCTIONS}\n\n${TOOL_INSTRUCTIONS}`;

const TOOLS = {
  now: () => new Date().toISOString(),
};

// The tool call in a reply (its args {} if none), or null for a plain answer.
function parseToolCall(text) {
  text = text.replace(/^\uFEFF/, "").trim(); // models often put a BOM or blank lines first
  if (!text.startsWith("{")) return null;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null; // looked like JSON, was not: an answer
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("tool" in parsed)) return null;
  if (parsed.args == null) parsed.args = {};
  return parsed;
}

// Run a tool by name; an unknown name is reported, not thrown.
function runTool(name, args) {
  if (typeof name !== "string") return `Error: the tool name must be a string`;
  if (!Object.hasOwn(TOOLS, name)) return `Error: unknown tool '${name}'`;
  return String(TOOLS[name](args));
}

// Read lines until an empty one (or the end of input); each reply sees the whole history.
async function chat() {
  let history = [];
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) break;
    const messages = [...history, { role: "user", content: line }];
    let reply;
    try {
      reply = (await call({ messages, system: SYSTEM })).text;
    } catch (error) {
      console.log(`error  ${error.message}`);
      continue;
    }
    const toolCall = parseToolCall(reply);
    if (toolCall === null) {
      console.log(`tao  ${reply}`);
    } else {
      // act: run the tool once and show the result, which the model never sees
      console.log(`act  ${toolCall.tool} ${JSON.stringify(toolCall.args)}`);
      console.log(`observe  ${runTool(toolCall.tool, toolCall.args)}`);
    }
    history = [...messages, { role: "assistant", content: reply }]; // a finished exchange
  }
}

await chat();
