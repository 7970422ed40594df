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
