import type OpenAI from 'openai';
import type { Clock } from '../../clock.js';
import type { ConfiguredModel, ModelPrice, ModelServiceSpec } from '../../config/model-services.js';
import { contextWindowOf, DEFAULT_COMPACT_FRACTION } from './context-window.js';
import { MODEL_DISCOVERY_RETRY_MS, MODEL_DISCOVERY_TIMEOUT_MS, MODEL_REQUEST_RETRIES } from './limits.js';
import { createHttpFetch, type HttpFetch } from './http-fetch.js';
import { openaiSdk } from './openai-sdk.js';
import { chatPoster, type ChatPoster } from './chat-post.js';

/** The models a service offers right now, and where the list came from. */
export interface ModelListing {
  readonly models: readonly ConfiguredModel[];
  /** `config`: listed in config.json; `discovered`: from `GET /models`; `fallback`: discovery failed. */
  readonly source: 'config' | 'discovered' | 'fallback';
  /** Why discovery failed (source `fallback`); the service stays usable with its default model. */
  readonly error?: string;
}

/** What the built-in agent knows of one model beyond its id: how much it holds and what it costs. */
export interface ModelProfile {
  readonly contextWindow: number;
  /** Compact before a request estimated above this share of the window (config `compactAt`, default 0.8). */
  readonly compactFraction: number;
  readonly price?: ModelPrice;
}

export type DiscoveryListener = (serviceId: string, error: string) => void;

/**
 * One OpenAI-compatible endpoint: its reused client and its model list
 * (configured, or discovered once through `GET /models` and cached).
 */
export class ModelService {
  readonly id: string;
  readonly baseUrl: string;
  private openai: Promise<OpenAI> | undefined;
  private poster: Promise<ChatPoster> | undefined;
  /** The service's connections, for the client and the chat poster: node:http keep-alive, not the global fetch (less memory, less time per request). */
  private readonly http: HttpFetch = createHttpFetch();
  private listing: ModelListing | undefined;
  private failedAt = 0;
  private discovering: Promise<ModelListing> | undefined;
  /** Set while `prefetch()` asks: whether a caller has joined its request. */
  private prefetching: { joined: boolean } | undefined;

  constructor(
    private readonly spec: ModelServiceSpec,
    private readonly clock: Clock,
    private readonly onDiscoveryFailed: DiscoveryListener = () => {},
  ) {
    this.id = spec.id;
    this.baseUrl = spec.baseUrl;
    if (spec.models && spec.models.length > 0) this.listing = { models: spec.models, source: 'config' };
  }

  /** One client per service, made on first use: the chat poster takes its URL, headers and timeout from it, and its error classes judge answers. */
  client(): Promise<OpenAI> {
    const spec = this.spec;
    this.openai ??= openaiSdk().then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: spec.baseUrl,
          // The package insists on a key; keyless local servers get a placeholder and no Authorization header.
          apiKey: spec.apiKey ?? 'unused',
          defaultHeaders: spec.apiKey === undefined ? { authorization: null } : undefined,
          maxRetries: MODEL_REQUEST_RETRIES,
          fetch: this.http.fetch,
        }),
    );
    return this.openai;
  }

  /** How the built-in agent posts chat completions: as the client would, on its connections (chat-post.ts); made once. */
  chat(): Promise<ChatPoster> {
    this.poster ??= this.client().then((client) => chatPoster(client, this.http));
    return this.poster;
  }

  /** What the client sends to authenticate: a bearer key, or nothing for a keyless local server. */
  private authHeaders(): Record<string, string> {
    return this.spec.apiKey === undefined ? {} : { authorization: `Bearer ${this.spec.apiKey}` };
  }

  /** Closes the service's connections (daemon shutdown); idempotent. */
  close(): void {
    this.http.close();
  }

  /** What is known now, without a request (undefined before the first discovery). */
  known(): ModelListing | undefined {
    return this.listing;
  }

  /** The models of this service; asks the endpoint at most once per retry interval, sharing one request among callers. */
  models(): Promise<ModelListing> {
    const l = this.listing;
    if (l && (l.source !== 'fallback' || this.clock.now() - this.failedAt < MODEL_DISCOVERY_RETRY_MS)) {
      return Promise.resolve(l);
    }
    // A session arriving while the warm-up asks shares that request and owns its outcome, failure included.
    if (this.prefetching) this.prefetching.joined = true;
    this.discovering ??= this.discover().finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  /** The context window and price of `model`, from config.json or its family's default. */
  profile(model: string): ModelProfile {
    const entry = this.spec.models?.find((m) => m.id === model);
    return {
      contextWindow: contextWindowOf(model, this.spec.models),
      compactFraction: entry?.compactAt ?? DEFAULT_COMPACT_FRACTION,
      ...(entry?.price ? { price: entry.price } : {}),
    };
  }

  /** The configured default model, else the first listed one, else null. */
  defaultModel(listing: ModelListing | undefined = this.listing): string | null {
    return this.spec.defaultModel ?? listing?.models[0]?.id ?? null;
  }

  /**
   * Asks for the model list ahead of the first session (the daemon's warm-up
   * after listening), so creating it waits for no `GET /models`. A failure is
   * not kept, reported or timed: the endpoint may simply not be up yet, and
   * the first session then asks again as if nothing had happened.
   */
  async prefetch(): Promise<void> {
    if (this.listing !== undefined || this.discovering !== undefined) return;
    const state = { joined: false };
    this.prefetching = state;
    this.discovering = this.discover(() => state.joined).finally(() => {
      this.discovering = undefined;
      this.prefetching = undefined;
    });
    await this.discovering;
  }

  private async discover(report: () => boolean = () => true): Promise<ModelListing> {
    try {
      // A plain GET, not the client's models.list(): the list is asked right after the port opens, before the client is loaded.
      const page = (await this.http.getJson(`${this.baseUrl.replace(/\/+$/, '')}/models`, this.authHeaders(), MODEL_DISCOVERY_TIMEOUT_MS)) as { data?: unknown };
      if (!Array.isArray(page?.data)) throw new Error('the answer has no `data` list');
      const models = (page.data as { id?: unknown }[])
        .filter((m): m is { id: string } => typeof m?.id === 'string' && m.id !== '')
        .map((m) => ({ id: m.id }));
      this.listing = { models, source: 'discovered' };
    } catch (err) {
      const error = `GET ${this.baseUrl}/models failed: ${err instanceof Error ? err.message : String(err)}`;
      const fallback: ModelListing = { models: this.spec.defaultModel ? [{ id: this.spec.defaultModel }] : [], source: 'fallback', error };
      if (!report()) return fallback;
      this.listing = fallback;
      this.failedAt = this.clock.now();
      this.onDiscoveryFailed(this.id, error);
    }
    return this.listing;
  }
}
