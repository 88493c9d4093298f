/**
 * Reads a socket by the byte counts and delimiters a handshake needs, and gives the socket back untouched (with any
 * bytes read ahead) once the handshake is done, for TLS or the request to take over.
 */
import type { Socket } from "node:net";
import { ProbeFailure, socketFailure } from "./failure";

/** A reader of one socket's bytes, until {@link SocketReader.release}. */
export class SocketReader {
  private buffered = Buffer.alloc(0);
  private ended: ProbeFailure | undefined;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.notify();
  };
  private readonly onEnd = () => this.stop(new ProbeFailure("closed", `the connection closed (${this.during})`));
  private readonly onError = (error: Error) => this.stop(socketFailure(error, this.during));

  constructor(
    private readonly socket: Socket,
    /** What the check waits for, shared with its timeout; also named in the messages of a closed connection. */
    private readonly stage: { during: string } = { during: "connecting" },
  ) {
    socket.on("data", this.onData);
    socket.on("end", this.onEnd);
    socket.on("error", this.onError);
    // A socket destroyed on this side (a grace period that ran out) closes with neither an end nor an error.
    socket.on("close", this.onEnd);
  }

  /** What the reader is waiting for. */
  get during(): string {
    return this.stage.during;
  }

  set during(during: string) {
    this.stage.during = during;
  }

  /** Exactly `n` bytes. */
  async bytes(n: number): Promise<Buffer> {
    await this.until(() => this.buffered.length >= n);
    return this.take(n);
  }

  /** The bytes up to and including `delimiter`, refusing more than `max` bytes before it. */
  async through(delimiter: string, max: number): Promise<Buffer> {
    let at = -1;
    await this.until(() => {
      at = this.buffered.indexOf(delimiter);
      if (at < 0 && this.buffered.length > max) throw new ProbeFailure("protocol_error", `the answer was too long (${this.during})`);
      return at >= 0;
    });
    return this.take(at + delimiter.length);
  }

  /** Everything until the connection ends, or `max` bytes. */
  async rest(max: number): Promise<Buffer> {
    try {
      await this.until(() => this.buffered.length >= max);
    } catch (error) {
      if (!(error instanceof ProbeFailure && error.kind === "closed")) throw error;
    }
    return this.take(Math.min(max, this.buffered.length));
  }

  /** The bytes received and not yet taken (what a proxy sent before it closed, to tell its protocol by). */
  pending(): Buffer {
    return this.buffered;
  }

  /** Stops reading: the socket, paused, and the bytes read ahead. */
  release(): { socket: Socket; ahead: Buffer } {
    this.socket.off("data", this.onData);
    this.socket.off("end", this.onEnd);
    this.socket.off("error", this.onError);
    this.socket.off("close", this.onEnd);
    this.socket.pause();
    return { socket: this.socket, ahead: this.take(this.buffered.length) };
  }

  private take(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.ended) throw this.ended;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private stop(failure: ProbeFailure): void {
    this.ended ??= failure;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
