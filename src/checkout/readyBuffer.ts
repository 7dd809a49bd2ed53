/**
 * Orders ready for checkout, gathered per coordinator in this process so that one signal carries
 * many (the coordinator was the busiest workflow of the server, one signal per order). A
 * coordinator gets at most one send per `flushMs` (and one more whenever `maxOrders` gathered): an
 * order that comes after a quiet `flushMs` goes at once, with whatever comes in the same moment,
 * and the orders after it go together at the end of the period. Each `add` settles as the send
 * that carried its item does (a failed send fails every caller, whose local activity tries again).
 */
export const READY_FLUSH_MS = 1_000;
export const READY_FLUSH_MAX = 100;

interface Waiting<T> {
  items: T[];
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  timer: ReturnType<typeof setTimeout>;
}

export function readyBuffer<T>(
  send: (key: string, items: T[]) => Promise<void>,
  flushMs = READY_FLUSH_MS,
  maxOrders = READY_FLUSH_MAX,
) {
  const open = new Map<string, Waiting<T>>();
  const lastSent = new Map<string, number>();
  const flush = (key: string): void => {
    const w = open.get(key);
    if (w === undefined) return;
    open.delete(key);
    lastSent.set(key, Date.now());
    clearTimeout(w.timer);
    void Promise.resolve()
      .then(() => send(key, w.items))
      .then(
        () => {
          for (const x of w.waiters) x.resolve();
        },
        (err: unknown) => {
          for (const x of w.waiters) x.reject(err);
        },
      );
  };
  return (key: string, item: T): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let w = open.get(key);
      if (w === undefined) {
        const due = (lastSent.get(key) ?? -Infinity) + flushMs;
        const timer = setTimeout(
          () => {
            flush(key);
          },
          Math.max(0, due - Date.now()),
        );
        w = { items: [], waiters: [], timer };
        open.set(key, w);
      }
      w.items.push(item);
      w.waiters.push({ resolve, reject });
      if (w.items.length >= maxOrders) flush(key);
    });
}
