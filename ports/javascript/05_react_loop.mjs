// Stage 05 in JavaScript: the ReAct loop (stages/05_react_loop).
//
// Each tool result goes back to the model, which thinks again, until it answers in plain
// text. One user message can now drive many model calls; agentStep is that inner loop,
// and the chat loop around it only keeps the final answers.
//
//   node ports/javascript/05_react_loop.mjs

import readline from "node:readline";
import { call } from "./model.mjs";

const MAX_ITERATIONS = 10; // a model that never stops calling tools must not loop forever
const MAX_OBSERVATION = 4000; // characters of one tool result the model gets to read

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

// Run a tool by name; every failure becomes an `Error: ...` the model can read.
function runTool(name, args) {
  if (typeof name !== "string") return `Error: the tool name must be a string`;
  if (!Object.hasOwn(TOOLS, name)) return `Error: unknown tool '${name}'; the tools are: ${Object.keys(TOOLS).join(", ")}`;
  try {
    return String(TOOLS[name](args));
  } catch (error) {
    return `Error: ${error.name}: ${error.message}`; // a broken tool is news for the model
  }
}

// A tool result wrapped as the user message the model reads next.
function observation(name, result) {
  if (result.length > MAX_OBSERVATION) {
    result = `${result.slice(0, MAX_OBSERVATION)}\n[... ${result.length - MAX_OBSERVATION} more characters cut]`;
  }
  // neither the result nor the name (the model's) may close the wrapper or open a fake one
  result = result.replace(/<(?=\s*\/?\s*tool_result)/gi, "&lt;");
  const tool = JSON.stringify(name).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
  return `<tool_result tool=${tool}>\n${result}\n</tool_result>`;
}

// Think, act, observe until the model answers in plain text; return that answer.
async function agentStep(userMessage, history) {
  const messages = [...history, { role: "user", content: userMessage }];
  for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
    const reply = (await call({ messages, system: SYSTEM })).text; // think
    const toolCall = parseToolCall(reply);
    if (toolCall === null) return reply; // a plain answer ends the turn
    console.log(`act  ${toolCall.tool} ${JSON.stringify(toolCall.args)}`);
    const result = runTool(toolCall.tool, toolCall.args); // act
    console.log(`observe  ${result}`);
    // observe: the call and its result join the conversation for the next think
    messages.push({ role: "assistant", content: reply });
    messages.push({ role: "user", content: observation(toolCall.tool, result) });
  }
  return `Stopped: no answer after ${MAX_ITERATIONS} iterations.`;
}

// Read lines until an empty one (or the end of input); each reply sees the whole history.
async function chat() {
  let history = [];
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) break;
    let answer;
    try {
      answer = await agentStep(line, history);
    } catch (error) {
      console.log(`error  ${error.message}`);
      continue;
    }
    console.log(`tao  ${answer}`);
    // only the final answer joins the history: this turn's tool calls are forgotten
    history = [...history, { role: "user", content: line }, { role: "assistant", content: answer }];
  }
}

await chat();
