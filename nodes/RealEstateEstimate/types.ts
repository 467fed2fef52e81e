import type { IBinaryKeyData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { ApiContext } from './transport';

/** One output item of an operation; the node adds `pairedItem`. */
export interface OperationResult {
	json: IDataObject;
	binary?: IBinaryKeyData;
}

/**
 * An operation in two steps so that every item is validated before any request is sent:
 * `prepare` reads and checks the item's parameters (no I/O, throws NodeOperationError naming
 * the item and field); `run` sends the request(s) and returns the item's output (0…n items).
 */
export interface Operation<P> {
	prepare(ctx: IExecuteFunctions, itemIndex: number): P;
	run(ctx: IExecuteFunctions, api: ApiContext, itemIndex: number, prepared: P): Promise<OperationResult[]>;
}
