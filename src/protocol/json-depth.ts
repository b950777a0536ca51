/**
 * How deeply a parsed JSON value nests, measured without recursion, so a value
 * nested thousands deep is refused before any recursive code (JSON.stringify,
 * a validator, a canonicaliser) can overflow the stack on it.
 * Stops counting as soon as `max` is passed: the cost is bounded by the
 * value's size, never by its depth.
 */
export function exceedsJsonDepth(value: unknown, max: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
