// The physical limit of a run on the virtual clock: the earliest it could end if every call (or plan step) started
// the moment it could, given when the model's stream makes its arguments complete, how long each tool takes, and the
// dependencies between plan steps. The modes benchmark divides each run's wall time by it.
//
// The limit is computed from the model's own schedule, not from the run's events: the events are stamped when the
// loop handles a part, so a loop that pulled the stream late would stamp its `tool-call-arguments-complete` late and
// move the limit with it, hiding the very delay the ratio is there to show. `recordDueTimes` therefore pulls each
// answer as fast as it comes, in a pump of its own, and stamps every part with the time the model made it due.

/**
 * Wraps a streaming model so that every part of every answer is stamped with the moment the model sends it. A pump
 * reads the stream at once, part by part (on a virtual clock a part arrives exactly when it is due), and queues the
 * parts for the loop, which reads them as it would have: a part due before the loop asks for it is there at once,
 * as the scripted model itself gives it (`createScriptedModel`: "a consumer that pulls late gets what is due at
 * once"). `answers[i]` is the i-th answer: `{ sentAt, parts: [{ part, at }] }`.
 */
export function recordDueTimes(model, clock) {
  const answers = [];
  const wrapped = {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    generate: (request) => model.generate(request),
    async *stream(request) {
      const answer = { sentAt: clock.now(), parts: [] };
      answers.push(answer);
      const queue = [];
      let wake;
      let ended = false;
      let failure;
      const pump = (async () => {
        try {
          for await (const part of model.stream(request)) {
            answer.parts.push({ part, at: clock.now() });
            queue.push(part);
            wake?.();
          }
        } catch (error) {
          failure = error;
        }
        ended = true;
        wake?.();
      })();
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift();
          continue;
        }
        if (ended) break;
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      await pump;
      if (failure !== undefined) throw failure;
    },
  };
  return { model: wrapped, answers };
}

/**
 * Where each step's object closes in a plan's argument text (`{"steps": {ID: {TOOL: ARGS}}, ...}`): the index of
 * its closing `}`, by step id. A small scanner of its own (strings, escapes, nesting), independent of the plan
 * executor's incremental reader, so that a reader that saw a step late could not move the limit with it.
 */
export function stepObjectEnds(text) {
  const ends = new Map();
  const stack = [];
  let key;
  let expectKey = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (expectKey) key = JSON.parse(text.slice(index, end + 1));
      index = end;
      continue;
    }
    if (char === ':') {
      expectKey = false;
      const frame = stack.at(-1);
      if (frame !== undefined) frame.key = key;
    } else if (char === '{' || char === '[') {
      stack.push({ kind: char, key: undefined });
      expectKey = char === '{';
    } else if (char === '}' || char === ']') {
      stack.pop();
      expectKey = false;
      // A value at $.steps.<id> just closed: the stack is [root at "steps", steps object at <id>].
      if (stack.length === 2 && stack[0].key === 'steps' && stack[1].kind === '{')
        ends.set(stack[1].key, index);
    } else if (char === ',') {
      expectKey = stack.at(-1)?.kind === '{';
    }
  }
  return ends;
}

/** The time (on the answer's own timeline) the argument text of call `toolCallId` reaches `index`. */
function argumentsTimeAt(answer, toolCallId, index) {
  let length = 0;
  for (const { part, at } of answer.parts) {
    if (part.type !== 'tool-call-delta' || part.toolCallId !== toolCallId) continue;
    length += part.argumentsDelta.length;
    if (length > index) return at;
  }
  throw new Error(`call ${toolCallId}: its streamed arguments never reach index ${index}`);
}

/** The first part of an answer that `predicate` accepts, with the time it was due. */
function partWhere(answer, predicate, what) {
  const found = answer.parts.find(({ part }) => predicate(part));
  if (found === undefined) throw new Error(`the streamed answer has no ${what}`);
  return found;
}

const finishOf = (answer) => partWhere(answer, (part) => part.type === 'finish', 'finish');
const callOf = (answer, id) =>
  partWhere(answer, (part) => part.type === 'tool-call' && part.toolCall.id === id, `call ${id}`);

/**
 * The physical limit of a run, in virtual ms, and the earliest start of every call and plan step.
 *
 * Model call i starts when round i − 1 ends (the first at 0) and takes what it took in the run (its latency depends
 * on its request alone, which is the same wherever it starts). A call (or plan step) of its answer can start when
 * its arguments are complete in the stream (`eager`; otherwise when the answer ends) and, for a plan step, when the
 * steps it uses have finished; it then takes `durationOf(toolName, args)`. A plan step skipped because a step it
 * uses failed takes no time. The round ends at the latest of the answer's end and its calls' ends; the run ends with
 * the last answer.
 *
 * - `answers`: from `recordDueTimes`, one per model call.
 * - `steps`: the run's `AgentResult.steps` (the actions of each round).
 * - `eager`: whether calls may start on their arguments (`eagerToolExecution`).
 * - `plan`: for plan mode, `{ toolName, dependencies: Map<id, ids>, skipped: Set<id> }`.
 */
export function physicalLimit({ answers, steps, eager, durationOf, plan }) {
  if (answers.length !== steps.length)
    throw new Error(`${answers.length} model calls but ${steps.length} steps`);
  let start = 0;
  const starts = [];
  for (let round = 0; round < answers.length; round++) {
    const answer = answers[round];
    const offset = start - answer.sentAt;
    const answerEnd = finishOf(answer).at + offset;
    let roundEnd = answerEnd;
    for (const action of steps[round].actions) {
      if (plan !== undefined && action.toolName === plan.toolName) {
        const objectEnds = stepObjectEnds(callOf(answer, action.id).part.toolCall.arguments);
        const finished = new Map();
        for (const [id, body] of Object.entries(action.args.steps)) {
          const [toolName, args] = Object.entries(body)[0];
          if (!objectEnds.has(id)) throw new Error(`plan step ${id}: no object end in the streamed plan`);
          const ready = eager ? argumentsTimeAt(answer, action.id, objectEnds.get(id)) + offset : answerEnd;
          const begin = Math.max(
            ready,
            ...(plan.dependencies.get(id) ?? []).map((used) => finished.get(used)),
          );
          const end = begin + (plan.skipped.has(id) ? 0 : durationOf(toolName, args));
          finished.set(id, end);
          starts.push({ round, id, ready, start: begin, end });
          roundEnd = Math.max(roundEnd, end);
        }
        continue;
      }
      const ready = eager ? callOf(answer, action.id).at + offset : answerEnd;
      const end = ready + durationOf(action.toolName, action.args);
      starts.push({ round, id: action.id, ready, start: ready, end });
      roundEnd = Math.max(roundEnd, end);
    }
    start = roundEnd;
  }
  return { limitMs: start, starts };
}
