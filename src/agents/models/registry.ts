import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import { HOME_CONFIG_FILE, type ModelServiceSpec } from '../../config/model-services.js';
import type { ModelInfo } from '../driver.js';
import { splitClientModelId, toClientModelId } from './model-id.js';
import { rehearseStreamedCompletion } from './rehearse.js';
import { ModelService, type DiscoveryListener, type ModelListing } from './service.js';

/** A model chosen by id: its service and the model name the endpoint knows. */
export interface ResolvedModel {
  readonly service: ModelService;
  readonly model: string;
}

export interface ModelServicesOptions {
  readonly clock: Clock;
  /** `$BERTH_HOME`, named in the "how to configure a model" message. */
  readonly home: string;
  /** Told of each failed discovery (the daemon logs it); discovery failure is never fatal. */
  readonly onDiscoveryFailed?: DiscoveryListener;
}

/** The daemon's model services, built once from `Config.modelServices` (the first is the default). */
export class ModelServices {
  private readonly services: ReadonlyMap<string, ModelService>;
  readonly configFile: string;

  constructor(specs: readonly ModelServiceSpec[], options: ModelServicesOptions) {
    this.services = new Map(specs.map((s) => [s.id, new ModelService(s, options.clock, options.onDiscoveryFailed)]));
    this.configFile = join(options.home, HOME_CONFIG_FILE);
  }

  /**
   * Asks each service for its model list, so the first session waits for no
   * `GET /models`. Cheap (a plain GET, no client), so it runs right after the
   * port opens.
   */
  warmUp(): Promise<void> {
    return Promise.all([...this.services.values()].map((s) => s.prefetch())).then(() => undefined);
  }

  /**
   * Makes each service's client now, so the first prompt waits for none:
   * loading the model package, Node compiling its bundled undici when the
   * client first builds `Headers` (about 20 ms), and a rehearsed streamed
   * completion (rehearse.ts), all of which a first turn used to pay.
   */
  async loadClients(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.chat()));
    if (this.services.size > 0) await rehearseStreamedCompletion();
  }

  /** Service ids, default first (`/capabilities` `modelServices`). */
  ids(): string[] {
    return [...this.services.keys()];
  }

  get(id: string): ModelService | undefined {
    return this.services.get(id);
  }

  default(): ModelService | undefined {
    return this.services.values().next().value;
  }

  /**
   * Finds a model by client id (`service/model`), or by bare name when exactly
   * one service lists it. Undefined when nothing matches.
   */
  async resolve(clientModelId: string): Promise<ResolvedModel | undefined> {
    const split = splitClientModelId(clientModelId);
    const named = split && this.services.get(split.serviceId);
    if (named) {
      const listing = await named.models();
      if (listing.models.some((m) => m.id === split!.model)) return { service: named, model: split!.model };
    }
    const matches: ResolvedModel[] = [];
    for (const service of this.services.values()) {
      const listing = await service.models();
      if (listing.models.some((m) => m.id === clientModelId)) matches.push({ service, model: clientModelId });
    }
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** Closes every service's connections (daemon shutdown); idempotent. */
  close(): void {
    for (const service of this.services.values()) service.close();
  }

  /** What a person must do to get a model; the `model_not_configured` message. */
  howToConfigure(): string {
    return (
      'No model is configured for the built-in agent. Set OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL ' +
      `in the daemon's environment, or add a "modelServices" entry ({"id", "baseUrl", "apiKey" or "apiKeyEnv", "defaultModel"}) to ${this.configFile}, ` +
      'then restart berth.'
    );
  }
}

/** `SessionState.models.availableModels` entries for one service's listing. */
export function modelInfos(serviceId: string, listing: ModelListing | undefined): ModelInfo[] {
  return (listing?.models ?? []).map((m) => ({
    modelId: toClientModelId(serviceId, m.id),
    name: m.name ?? m.id,
    ...(m.description !== undefined && { description: m.description }),
  }));
}
