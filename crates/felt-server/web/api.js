// The HTTP half of the protocol (docs/protocol.md): JSON in, JSON out, the session
// cookie sent by the browser itself (HttpOnly: this script never sees it).

/** A request; resolves to {ok, status, data} (data: the JSON body, or null). */
export async function api(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch(path, init);
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'network', message: 'the server cannot be reached' } };
  }
  let data = null;
  if (r.status !== 204) {
    try {
      data = await r.json();
    } catch (e) {
      data = null;
    }
  }
  return { ok: r.ok, status: r.status, data };
}

/** A readable message for a failed request. */
export function why(res) {
  return res?.data?.message || `the server answered ${res?.status}`;
}
