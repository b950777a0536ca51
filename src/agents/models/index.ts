export { splitClientModelId, toClientModelId } from './model-id.js';
export { modelInfos, ModelServices, type ModelServicesOptions, type ResolvedModel } from './registry.js';
export { ModelService, type ModelListing } from './service.js';
