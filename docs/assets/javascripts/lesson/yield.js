// Give the main thread back (a tap, a frame) before going on with a long piece of work.
export function yieldToMain() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  // Without scheduler.yield: a message comes back sooner than a timer (no 4 ms clamp).
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}
