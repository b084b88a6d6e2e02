/** A small well-formedness check for the SVG the demo writes: balanced tags, quoted attributes, known entities. */
export function assertWellFormedXml(text: string): void {
  const stack: string[] = [];
  const token =
    /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|&(?!(?:amp|lt|gt|quot|apos|#\d+);)|<|>/g;
  let roots = 0;
  for (const match of text.matchAll(token)) {
    const [whole, closing, name, , selfClosing] = match;
    if (whole.startsWith('<!--') || whole.startsWith('<?')) continue;
    if (name === undefined) throw new Error(`stray '${whole}' at offset ${match.index}`);
    if (closing === '/') {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open ?? 'nothing'}> at offset ${match.index}`);
    } else if (selfClosing !== '/') {
      if (stack.length === 0) roots += 1;
      stack.push(name);
    } else if (stack.length === 0) {
      roots += 1;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
}
