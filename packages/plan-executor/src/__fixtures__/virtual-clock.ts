import type { Clock } from '../clock.js';

interface Timer {
  readonly at: number;
  readonly sequence: number;
  readonly resolve: () => void;
  cancelled: boolean;
}

/**
 * A clock whose time moves only when everything else is idle: `run(promise)` drains microtasks, then jumps to
 * the earliest timer and fires it, one timer at a time, until the promise settles. Deterministic and instant.
 */
export class VirtualClock implements Clock {
  private time = 0;
  private sequence = 0;
  private readonly timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const timer: Timer = {
        at: this.time + Math.max(0, ms),
        sequence: this.sequence++,
        resolve,
        cancelled: false,
      };
      this.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          timer.cancelled = true;
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Pending timers (cancelled ones excluded). */
  get pendingTimers(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  /** Drives time until `promise` settles; rejects if nothing is left to fire and it has not settled. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (settled) return promise;
      const timer = this.pop();
      if (timer === undefined)
        throw new Error('VirtualClock: the promise cannot settle, no timer is pending');
      this.time = timer.at;
      timer.resolve();
    }
  }

  /** Fires every timer due up to `time` (each followed by a microtask drain). */
  async advanceTo(time: number): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const next = this.peek();
      if (next === undefined || next.at > time) break;
      this.pop();
      this.time = next.at;
      next.resolve();
    }
    this.time = Math.max(this.time, time);
  }

  private less(left: Timer, right: Timer): boolean {
    return left.at < right.at || (left.at === right.at && left.sequence < right.sequence);
  }

  private push(timer: Timer): void {
    const heap = this.timers;
    heap.push(timer);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  private peek(): Timer | undefined {
    while (this.timers.length > 0 && this.timers[0]!.cancelled) this.removeTop();
    return this.timers[0];
  }

  private pop(): Timer | undefined {
    const top = this.peek();
    if (top !== undefined) this.removeTop();
    return top;
  }

  private removeTop(): void {
    const heap = this.timers;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && this.less(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.less(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
      index = smallest;
    }
  }
}
