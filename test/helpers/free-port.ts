// A loopback port that was free a moment ago: for a listener that must keep its port across a
// restart, or an address that must be known before the server starts (MAILROOM_PUBLIC_URL).
import net from 'node:net';

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * Starts something on a port chosen with freePort, choosing again (up to `tries` times) when another
 * process took the port between the choice and the listen (EADDRINUSE): on a busy machine it happens.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || i >= tries) throw err;
    }
  }
}
