// When a page first shows something: checked on every animation frame by a script the page runs
// before its own (so the first frame counts even when it comes before Playwright could ask), on
// the page's own clock. The page reports the figure on its console, so Playwright neither polls
// nor evaluates anything in the page while it renders: its first evaluation compiles Playwright's
// injected script on the page's main thread (tens of ms, more under load), which fell between the
// load event and the view's render.

const MARK = 'berth-bench-usable ';

/**
 * Registers the watch on `page` before it navigates. `shown` (in an object, so awaiting the
 * registration does not await the frame) is the page's performance.now() on the first frame where
 * an element matching `selector` contains `text` and, when `also` is given, one matching `also` exists.
 */
export async function watchUsable(page, { selector, text, also = null, timeoutMs = 120_000 }) {
  let timer;
  const shown = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: no frame showed ${JSON.stringify(text)} within ${timeoutMs} ms`)), timeoutMs);
    page.on('console', (message) => {
      const line = message.text();
      if (line.startsWith(MARK)) resolve(Number(line.slice(MARK.length)));
    });
  }).finally(() => clearTimeout(timer));
  await page.addInitScript(
    ([sel, txt, also, mark]) => {
      const tick = () => {
        const found = [...document.querySelectorAll(sel)].some((e) => (e.textContent ?? '').includes(txt));
        if (found && (!also || document.querySelector(also))) console.debug(mark + performance.now());
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    [selector, text, also, MARK],
  );
  return { shown };
}
