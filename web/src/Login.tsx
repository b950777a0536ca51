import { useState } from 'preact/hooks';
import { checkToken, token } from './api';

/** The token screen: the token is kept in this tab's sessionStorage and sent only as a header. */
export function Login({ done, failed }: { done: () => void; failed: boolean }) {
  const [value, setValue] = useState('');
  const [wrong, setWrong] = useState(failed);
  const submit = async (e: Event) => {
    e.preventDefault();
    token.set(value.trim());
    if (await checkToken()) done();
    else {
      token.set('');
      setWrong(true);
    }
  };
  return (
    <form class="login" onSubmit={submit}>
      <h1>Berth</h1>
      <p>This daemon asks for its owner token.</p>
      <label>
        Token
        <input type="password" autocomplete="off" autoFocus aria-label="Token" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
      </label>
      {wrong && <p class="refused">That token was refused.</p>}
      <button type="submit" class="primary">
        Sign in
      </button>
    </form>
  );
}
