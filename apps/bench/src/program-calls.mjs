// Where a code-mode program's calls are in its streamed text: the modes benchmark's model of when each call of a
// program can start (code-mode's physical limit), read from the program itself, whatever its style.
//
// - A call with literal arguments (`search({ query: 'a1' })`) can start when its `)` has streamed in: code mode
//   starts such a call of an eager tool at that moment.
// - Under "complete top-level statements run as they close" (code mode's prefix runs), any other
//   call can start when the statement that makes it is complete. A statement is a line of the program; the calls a
//   line makes are its tools' invocations and the helpers it uses (`const open_pages = (r) => ... open_page(...)`
//   defines a helper: `.then(open_pages)` on a later line makes `open_page` calls there).

/**
 * The program of a code call's raw JSON arguments (`{"code":"..."}`), and for each of its characters the index of
 * the raw character it came from (so a position in the program is a position in the stream).
 */
export function decodeProgram(raw) {
  const opening = /^\s*\{\s*"code"\s*:\s*"/.exec(raw);
  if (opening === null) return { program: '', rawIndex: [] };
  let program = '';
  const rawIndex = [];
  for (let position = opening[0].length; position < raw.length; ) {
    const char = raw[position];
    if (char === '"') break;
    if (char !== '\\') {
      program += char;
      rawIndex.push(position);
      position += 1;
      continue;
    }
    const escaped = raw[position + 1];
    const simple = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };
    const width = escaped === 'u' ? 6 : 2;
    program +=
      escaped === 'u'
        ? String.fromCharCode(Number.parseInt(raw.slice(position + 2, position + 6), 16))
        : simple[escaped];
    // A decoded character is complete when its last raw character is.
    rawIndex.push(position + width - 1);
    position += width;
  }
  return { program, rawIndex };
}

/**
 * Reads an object literal at `start` (after `name(`) followed by `)`: keys bare or quoted, values strings, numbers,
 * booleans, null, arrays and objects of them. Returns its value and the index of the `)`, or undefined when the
 * argument is not such a literal.
 */
function literalArgument(text, start) {
  let position = start;
  const space = () => {
    while (/\s/.test(text[position] ?? '')) position += 1;
  };
  const string = () => {
    const quote = text[position];
    let value = '';
    for (position += 1; position < text.length; position += 1) {
      const char = text[position];
      if (char === quote) {
        position += 1;
        return value;
      }
      if (char === '\\') {
        position += 1;
        const escaped = text[position];
        value += { n: '\n', t: '\t', r: '\r' }[escaped] ?? escaped;
      } else value += char;
    }
    throw new Error('unterminated string');
  };
  const value = () => {
    space();
    const char = text[position];
    if (char === "'" || char === '"') return string();
    if (char === '{' || char === '[') {
      const object = char === '{';
      const result = object ? {} : [];
      position += 1;
      for (;;) {
        space();
        if (text[position] === (object ? '}' : ']')) {
          position += 1;
          return result;
        }
        if (object) {
          let key;
          if (text[position] === "'" || text[position] === '"') key = string();
          else {
            key = /^[A-Za-z_$][\w$]*/.exec(text.slice(position))?.[0];
            if (key === undefined) throw new Error('not a key');
            position += key.length;
          }
          space();
          if (text[position] !== ':') throw new Error('not a literal');
          position += 1;
          result[key] = value();
        } else result.push(value());
        space();
        if (text[position] === ',') position += 1;
        else if (text[position] !== (object ? '}' : ']')) throw new Error('not a literal');
      }
    }
    const word = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w$])/.exec(
      text.slice(position),
    )?.[0];
    if (word === undefined) throw new Error('not a literal');
    position += word.length;
    return JSON.parse(word);
  };
  try {
    space();
    if (text[position] !== '{') return undefined;
    const args = value();
    space();
    return text[position] === ')' ? { args, close: position } : undefined;
  } catch {
    return undefined;
  }
}

/** Each call of one of `functions` with a literal argument: the function, its arguments, the index of its `)`. */
export function literalCalls(program, functions) {
  const names = functions.map((name) => name.replace(/\$/g, '\\$'));
  const pattern = new RegExp(`(?<![\\w$.])(${names.join('|')})\\s*\\(`, 'g');
  const found = [];
  for (const match of program.matchAll(pattern)) {
    const literal = literalArgument(program, match.index + match[0].length);
    if (literal !== undefined) found.push({ name: match[1], args: literal.args, close: literal.close });
  }
  return found;
}

/**
 * The calls each statement (line) makes, in order: one entry per invocation of a tool's function, directly or
 * through a helper an earlier line defined, with the index of the statement's last character.
 */
export function statementCalls(program, functions) {
  const helpers = new Map();
  const made = [];
  let offset = 0;
  for (const line of program.split('\n')) {
    const end = offset + line.length - 1;
    offset += line.length + 1;
    const invoked = (text) => {
      const tools = [];
      for (const name of functions)
        for (const _ of text.matchAll(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\(`, 'g')))
          tools.push(name);
      for (const [helper, inner] of helpers)
        for (const _ of text.matchAll(
          new RegExp(`(?<![\\w$.])${helper.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'),
        ))
          tools.push(...inner);
      return tools;
    };
    const definition = /^const ([A-Za-z_$][\w$]*) = \([^)]*\) =>(.*)$/.exec(line);
    if (definition !== null) {
      helpers.set(definition[1], invoked(definition[2]));
      continue;
    }
    for (const name of invoked(line)) made.push({ name, end });
  }
  return made;
}
