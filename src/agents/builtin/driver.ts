import type { Clock } from '../../clock.js';
import { MODEL_STREAM_IDLE_TIMEOUT_MS } from '../models/limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { AgentDriver, DriverState, HistoryItem, TurnIO, TurnResult } from '../driver.js';
import { modelInfos, toClientModelId, type ModelService, type ModelServices } from '../models/index.js';
import { Conversation } from './conversation.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './model-retry.js';
import { SYSTEM_PROMPT } from './system-prompt.js';
import { compactConversation } from './compact-turn.js';
import { compactionRun, runBuiltinTurn, type TurnSetup } from './turn.js';

export interface BuiltinDriverOptions {
  readonly services: ModelServices;
  /** The service to start on (`POST /session` `modelServiceId`); default: the daemon's default service. */
  readonly modelServiceId?: string;
  /** Config.maxTurnIterations: model calls one turn may make. */
  readonly maxTurnIterations: number;
  readonly clock: Clock;
  readonly systemPrompt?: string;
  /** Default MODEL_STREAM_IDLE_TIMEOUT_MS. */
  readonly streamIdleTimeoutMs?: number;
  /** Retries of a 429/5xx model answer; default DEFAULT_RETRY_POLICY. */
  readonly retry?: RetryPolicy;
}

/**
 * The built-in agent (docs/architecture.md, Agent driver): a tool-calling loop over any
 * OpenAI-compatible chat-completions endpoint, one instance per session.
 */
export class BuiltinAgentDriver implements AgentDriver {
  readonly harness = 'built-in';
  private readonly conversation: Conversation;

  constructor(
    private readonly options: BuiltinDriverOptions,
    private service: ModelService | undefined,
    private model: string | null,
  ) {
    this.conversation = new Conversation(options.systemPrompt ?? SYSTEM_PROMPT);
  }

  async runTurn(io: TurnIO): Promise<TurnResult> {
    return runBuiltinTurn(io, await this.turnSetup());
  }

  async compact(io: Pick<TurnIO, 'signal' | 'emit'>): Promise<string> {
    const done = await compactConversation(compactionRun(io, await this.turnSetup()), 'request');
    return done
      ? `Compacted the conversation from about ${done.tokensBefore} to about ${done.tokensAfter} tokens.`
      : 'Nothing to compact yet: the conversation is no longer than the turns kept verbatim.';
  }

  /** What a turn or a compaction runs on; refuses when no model can be used. */
  private async turnSetup(): Promise<TurnSetup> {
    const { service, model } = this;
    if (!service) throw new BerthError('model_not_configured', this.options.services.howToConfigure());
    if (model === null) {
      const why = service.known()?.error ?? 'it lists no models';
      throw new BerthError(
        'model_not_configured',
        `The model service ${service.id} has no model to use: ${why}. Set its "defaultModel" in ${this.options.services.configFile} (or OPENAI_MODEL for the env service).`,
        { modelServiceId: service.id },
      );
    }
    return {
      client: await service.chat(),
      target: { serviceId: service.id, model, baseUrl: service.baseUrl },
      conversation: this.conversation,
      maxIterations: this.options.maxTurnIterations,
      clock: this.options.clock,
      streamIdleTimeoutMs: this.options.streamIdleTimeoutMs ?? MODEL_STREAM_IDLE_TIMEOUT_MS,
      profile: service.profile(model),
      retry: this.options.retry ?? DEFAULT_RETRY_POLICY,
    };
  }

  state(): DriverState {
    const service = this.service;
    if (!service) return { models: { currentModelId: null, availableModels: [] } };
    return {
      models: {
        currentModelId: this.model === null ? null : toClientModelId(service.id, this.model),
        availableModels: modelInfos(service.id, service.known()),
      },
    };
  }

  async setModel(modelId: string): Promise<void> {
    const found = await this.options.services.resolve(modelId);
    if (!found) {
      throw new BerthError('model_not_found', `Unknown model ${modelId}; take ids from state.models.availableModels`, { modelId });
    }
    this.service = found.service;
    this.model = found.model;
  }

  restore(history: readonly HistoryItem[]): void {
    this.conversation.restore(history);
  }

  dispose(): void {
    // Nothing to release: the model clients belong to the daemon's ModelServices and are shared.
  }
}

/**
 * Builds a driver on the requested (or default) service. Waits for that
 * service's model list once (cached daemon-wide) so `state()` is complete
 * from the start; a discovery failure only narrows the list to the default.
 * An unknown service id is refused with `model_not_found`.
 */
export async function createBuiltinDriver(options: BuiltinDriverOptions): Promise<BuiltinAgentDriver> {
  const services = options.services;
  const service = options.modelServiceId === undefined ? services.default() : services.get(options.modelServiceId);
  if (options.modelServiceId !== undefined && !service) {
    throw new BerthError('model_not_found', `Unknown model service ${options.modelServiceId}`, {
      modelServiceId: options.modelServiceId,
    });
  }
  const listing = service ? await service.models() : undefined;
  return new BuiltinAgentDriver(options, service, service ? service.defaultModel(listing) : null);
}
