/**
 * Messages to the Pulumi engine's log (`pulumirpc.Engine/Log`): unlike a dynamic provider's, they are shown on the
 * resource's own row, not the stack's.
 */
import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import type { ProviderLog } from "../provider/rate-limit-report";

/** Sends log messages to the engine at `address`; without one (a test), to stderr. */
export class EngineLog {
  private readonly client: EngineClient | undefined;

  constructor(address: string | undefined) {
    this.client = address ? new EngineClient(address, grpc.credentials.createInsecure()) : undefined;
  }

  /** A log whose messages belong to the resource `urn` (or to the stack, without one). */
  forResource(urn: string | undefined): ProviderLog {
    return {
      info: (message) => this.send(LogSeverity.INFO, message, urn),
      warn: (message) => this.send(LogSeverity.WARNING, message, urn),
    };
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
    this.client.log(request, () => undefined);
  }

  close(): void {
    this.client?.close();
  }
}
