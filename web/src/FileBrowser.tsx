import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { highlight, langOfPath, loadHighlighter } from './highlight';

interface Entry {
  readonly name: string;
  readonly kind: string;
}
type Shown =
  | { kind: 'text'; path: string; html: string; truncated: boolean }
  | { kind: 'image'; path: string; url: string }
  | { kind: 'refused'; path: string; message: string };

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|ico)$/i;
/** Images larger than this are not pulled into the page (one /file/bytes window). */
const MAX_IMAGE_BYTES = 256 * 1024;
const join = (dir: string, name: string) => (dir === '.' ? name : `${dir}/${name}`);
const enc = encodeURIComponent;

/** The primary workspace over the read routes: directories, text with highlighting, images, binaries refused politely. */
export function FileBrowser({ onError }: { onError: (m: string) => void }) {
  const [dir, setDir] = useState('.');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [shown, setShown] = useState<Shown | null>(null);

  useEffect(() => {
    api<{ entries: Entry[] }>('GET', `/list?path=${enc(dir)}`)
      .then((r) => setEntries([...r.entries].sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || a.name.localeCompare(b.name))))
      .catch((err: Error) => onError(err.message));
  }, [dir]);
  useEffect(() => () => void (shown?.kind === 'image' && URL.revokeObjectURL(shown.url)), [shown]);

  const open = async (path: string) => {
    try {
      if (IMAGE.test(path)) {
        const r = await api('GET', `/file/bytes?path=${enc(path)}&maxBytes=${MAX_IMAGE_BYTES}`);
        if (r.truncated) return setShown({ kind: 'refused', path, message: 'This image is too large to show here.' });
        const bytes = Uint8Array.from(atob(r.contentBase64), (c) => c.charCodeAt(0));
        return setShown({ kind: 'image', path, url: URL.createObjectURL(new Blob([bytes])) });
      }
      const [r] = await Promise.all([api('GET', `/file?path=${enc(path)}`), loadHighlighter()]);
      setShown({ kind: 'text', path, html: highlight(r.content, langOfPath(path)), truncated: r.truncated === true });
    } catch (err) {
      if (err instanceof ApiError && (err.code === 'binary_file' || err.status === 413 || err.status === 422)) {
        setShown({ kind: 'refused', path, message: `Not shown: ${err.message}` });
      } else onError((err as Error).message);
    }
  };

  const up = dir === '.' ? null : dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '.';
  return (
    <div class="files">
      <nav class="file-list" aria-label="Files">
        <div class="muted">{dir}</div>
        <ul>
          {up !== null && (
            <li>
              <button class="link" onClick={() => setDir(up)}>
                ..
              </button>
            </li>
          )}
          {entries.map((e) => (
            <li key={e.name}>
              <button class="link" onClick={() => (e.kind === 'directory' ? setDir(join(dir, e.name)) : open(join(dir, e.name)))}>
                {e.kind === 'directory' ? `${e.name}/` : e.name}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <section class="file-view" aria-label="File">
        {shown === null && <p class="muted">Choose a file.</p>}
        {shown?.kind === 'text' && (
          <>
            <h3>{shown.path}</h3>
            <pre>
              <code class="hljs" dangerouslySetInnerHTML={{ __html: shown.html }} />
            </pre>
            {shown.truncated && <p class="muted">Only the first part of the file is shown.</p>}
          </>
        )}
        {shown?.kind === 'image' && (
          <>
            <h3>{shown.path}</h3>
            <img src={shown.url} alt={shown.path} />
          </>
        )}
        {shown?.kind === 'refused' && (
          <>
            <h3>{shown.path}</h3>
            <p class="refused">{shown.message}</p>
          </>
        )}
      </section>
    </div>
  );
}
