/**
 * AbortSignal.any and AbortSignal.timeout for every platform: React Native's AbortSignal
 * (and older browsers') has neither.
 */

/** A signal that aborts, with its reason, when the first of `signals` does. */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal?.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

/** A signal that aborts after `ms` milliseconds, without keeping a Node process alive. */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer in ${ms} ms`)), ms) as
    { unref?: () => void } | number;
  if (typeof timer === "object") {
    timer.unref?.();
  }
  return controller.signal;
}
