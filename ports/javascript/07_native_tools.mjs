// Stage 07 in JavaScript: native tool calling (stages/07_native_tools).
//
// The same agent on the provider's own tool API: tools are sent with JSON Schema, calls
// come back in their own slot, several per reply, and the text streams live again.
//
//   node ports/javascript/07_native_tools.mjs

import readline from "node:readline";
import { call } from "./model.mjs";

const MAX_ITERATIONS = 10; // a model that never stops calling tools must not loop forever
const MAX_OBSERVATION = 4000; // characters of one tool result the model gets to read

const PERSONA = "You are Tao, a patient guide who explains how programs work.";
const INSTRUCTIONS = `Answer in plain language, in a few sentences.
If you are not sure, say so instead of guessing.`;
const SYSTEM = `${PERSONA}\n\n${INSTRUCTIONS}`; // the tools no longer need describing in it

// Arithmetic without eval: + - * / // % ** and parentheses, read by recursive descent.
function evaluate(expression) {
  const tokens = String(expression).replace(/\^/g, "**").match(/\d+(?:\.\d+)?|\*\*|\/\/|\S/g) || [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];
  function atom() {
    const token = take();
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("a parenthesis is not closed");
      return value;
    }
    if (token === "-") return -power();
    if (token === "+") return power();
    if (token === undefined || !/^\d/.test(token)) throw new Error(`not an arithmetic expression: '${expression}'`);
    return Number(token);
  }
  function power() {
    const base = atom();
    return peek() === "**" ? (take(), base ** power()) : base;
  }
  function product() {
    let value = power();
    while (["*", "/", "//", "%"].includes(peek())) {
      const op = take();
      const right = power();
      if (op !== "*" && right === 0) throw new Error("division by zero");
      value = op === "*" ? value * right : op === "/" ? value / right
        : op === "//" ? Math.floor(value / right) : value - right * Math.floor(value / right);
    }
    return value;
  }
  function sum() {
    let value = product();
    while (peek() === "+" || peek() === "-") value = take() === "+" ? value + product() : value - product();
    return value;
  }
  const value = sum();
  if (at !== tokens.length) throw new Error(`not an arithmetic expression: '${expression}'`);
  if (!Number.isFinite(value)) throw new Error("result too large");
  return value;
}

// A JSON Schema for one required string argument.
const textArg = (name, about) => ({
  type: "object", properties: { [name]: { type: "string", description: about } }, required: [name],
});

const TOOLS = [
  { name: "now", description: "Return the current UTC time.", schema: { type: "object", properties: {} },
    run: () => new Date().toISOString() },
  { name: "wordcount", description: "Count the words in a text.",
    schema: textArg("text", "the text whose words to count"),
    run: (args) => String(args.text.split(/\s+/).filter(Boolean).length) },
  { name: "calculator", description: "Work out an arithmetic expression such as 12 * (3 + 4).",
    schema: textArg("expression", "numbers, + - * / // % ** and parentheses"),
    run: (args) => String(evaluate(args.expression)) },
];

// Run one tool call; every failure becomes an `Error: ...` the model can read.
function runTool(call) {
  const tool = TOOLS.find((t) => t.name === call.name);
  if (!tool) return `Error: unknown tool '${call.name}'; the tools are: ${TOOLS.map((t) => t.name).join(", ")}`;
  const missing = (tool.schema.required || []).filter((key) => !(key in call.args));
  if (missing.length) return `Error: ${call.name} needs the argument(s) ${missing.join(", ")}`;
  let result;
  try {
    result = String(tool.run(call.args));
  } catch (error) {
    return `Error: ${error.name}: ${error.message}`; // a broken tool is news for the model
  }
  if (result.length > MAX_OBSERVATION) {
    result = `${result.slice(0, MAX_OBSERVATION)}\n[... ${result.length - MAX_OBSERVATION} more characters cut]`;
  }
  return result;
}

// Think, act, observe until the model answers without calling a tool.
async function agentStep(userMessage, history) {
  const messages = [...history, { role: "user", content: userMessage }];
  for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
    // think: text deltas are printed live; calls arrive in their own slot
    const reply = await call({ messages, system: SYSTEM, tools: TOOLS, onText: (t) => process.stdout.write(t) });
    if (reply.text) process.stdout.write("\n");
    if (reply.stopReason === "max_tokens") return `${reply.text}\n[the reply was cut off: it reached the token limit]`;
    if (!reply.toolCalls.length) return reply.text;
    messages.push({ role: "assistant", content: reply.text, tool_calls: reply.toolCalls });
    for (const toolCall of reply.toolCalls) { // every call of this reply, in the order given
      console.log(`act  ${toolCall.name} ${JSON.stringify(toolCall.args)} ${toolCall.id}`);
      const result = runTool(toolCall); // act
      console.log(`observe  ${result}`);
      // observe: tool_call_id threads each result back to the call that asked for it
      messages.push({ role: "tool", tool_call_id: toolCall.id, name: toolCall.name, content: result });
    }
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
