/**
 * Messages to the Pulumi engine's log (`pulumirpc.Engine/Log`): unlike a dynamic provider's printed lines, they are
 * shown on the resource's own row, not the stack's, and debug messages only with the CLI's `--debug`.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";

/** A log whose messages belong to one resource, or to the stack. */
export interface ResourceLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Sends log messages to the engine at `address`; without one (a test), info and warnings to stderr. */
export class EngineLog {
  private readonly client: EngineClient | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(address: string | undefined) {
    this.client = address ? new EngineClient(address, grpc.credentials.createInsecure()) : undefined;
  }

  /** A log whose messages belong to the resource `urn` (or to the stack, without one). */
  forResource(urn: string | undefined): ResourceLog {
    return {
      info: (message) => this.send(LogSeverity.INFO, message, urn),
      warn: (message) => this.send(LogSeverity.WARNING, message, urn),
    };
  }

  /** A debug message of the stack's; without an engine, dropped. */
  debug(message: string): void {
    if (this.client) this.send(LogSeverity.DEBUG, message, undefined);
  }

  private send(severity: LogSeverity, message: string, urn: string | undefined): void {
    if (!this.client) {
      process.stderr.write(`${severity === LogSeverity.WARNING ? "warning" : "info"}: ${message}\n`);
      return;
    }
    const request = new LogRequest();
    request.setSeverity(severity);
    request.setMessage(message);
    if (urn) request.setUrn(urn);
    // A message the engine cannot take is not worth failing an operation for.
    const sent = new Promise<void>((resolve) => this.client?.log(request, () => resolve()));
    this.inFlight.add(sent);
    void sent.then(() => this.inFlight.delete(sent));
  }

  /**
   * Resolves once every message sent so far has reached the engine (or failed), or after `withinMs`. An operation
   * answers only then: the engine may stop the plugin as soon as it has the last answer (a destroy's), and a message
   * still on its way, such as the warning that a purchase stays active, would be lost. The first message of a process
   * also opens the connection to the engine, which some runtimes (Bun's, for the darwin-arm64 executable) do lazily.
   */
  async delivered(withinMs = 5000): Promise<void> {
    if (this.inFlight.size === 0) return;
    const timeout = new AbortController();
    await Promise.race([Promise.all(this.inFlight), sleep(withinMs, undefined, { ref: false, signal: timeout.signal }).catch(() => undefined)]);
    timeout.abort();
  }

  close(): void {
    this.client?.close();
  }
}
