/**
 * The arithmetic of a windowed list with rows of different heights: which rows a viewport (plus
 * some overscan) touches, and how tall the unrendered parts above and below are. Heights come from
 * measurement where a row was rendered once, else from an estimate; nothing here touches the DOM.
 */
export interface Range {
  readonly start: number;
  /** One past the last row to render. */
  readonly end: number;
  readonly above: number;
  readonly below: number;
}

export function visibleRange(heights: readonly number[], scrollTop: number, viewport: number, overscan: number): Range {
  const n = heights.length;
  const top = Math.max(0, scrollTop - overscan);
  const bottom = scrollTop + viewport + overscan;
  let y = 0;
  let start = 0;
  while (start < n && y + heights[start]! <= top) y += heights[start++]!;
  const above = y;
  let end = start;
  while (end < n && y < bottom) y += heights[end++]!;
  let below = 0;
  for (let i = end; i < n; i++) below += heights[i]!;
  return { start, end, above, below };
}
