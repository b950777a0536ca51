import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

/**
 * One group of client-API routes (a tag of the OpenAPI). A module advertises
 * the capability tags it serves (docs/client-api.md §3.2), so `/capabilities` `features`
 * lists exactly what this build answers.
 */
export interface HttpModule {
  readonly name: string;
  features(core: Core): readonly string[];
  register(app: FastifyInstance, core: Core): void;
}
