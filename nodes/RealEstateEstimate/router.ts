/**
 * Runs one operation over all input items:
 *  1. every item's parameters are read and validated first (no request is sent when any item is
 *     invalid, unless "Continue On Fail" is on: then only that item fails);
 *  2. the requests run in a pool of "Concurrent Requests" (the first item alone, so that n8n
 *     fetches a missing token once);
 *  3. outputs are placed by input index, so order and `pairedItem` follow the input whatever
 *     order the answers arrive in. A failed item yields one `{ json: { error, … } }` item when
 *     continuing on fail; otherwise the failure of the lowest item index is thrown.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { runPool } from './pool';
import { getApiContext } from './transport';
import type { ApiContext } from './transport';
import type { Operation, OperationResult } from './types';

type Prepared<P> = { ok: true; value: P } | { ok: false; error: Error };

/** Any error as a NodeApiError/NodeOperationError carrying the item index. */
export function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), message, { itemIndex });
}

/** The json of the output item that stands for a failed input item. */
export function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) json.httpCode = Number(httpCode);
	return json;
}

export async function runOperation<P>(
	ctx: IExecuteFunctions,
	operation: Operation<P>,
	itemCount: number,
	concurrency: number,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();

	const prepared: Array<Prepared<P>> = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			prepared.push({ ok: true, value: operation.prepare(ctx, itemIndex) });
		} catch (error) {
			prepared.push({ ok: false, error: asNodeError(ctx, error, itemIndex) });
		}
	}
	const firstInvalid = prepared.find((entry) => !entry.ok);
	if (firstInvalid && !firstInvalid.ok && !continueOnFail) throw firstInvalid.error;

	let api: ApiContext | Error | undefined;
	if (prepared.some((entry) => entry.ok)) {
		try {
			api = await getApiContext(ctx);
		} catch (error) {
			api = asNodeError(ctx, error, 0);
			if (!continueOnFail) throw api;
		}
	}

	const signal = ctx.getExecutionCancelSignal?.();
	const outcomes = await runPool<OperationResult[]>(
		itemCount,
		concurrency,
		async (itemIndex) => {
			const entry = prepared[itemIndex];
			if (!entry.ok) throw entry.error;
			if (api === undefined || api instanceof Error) throw api;
			return await operation.run(ctx, api, itemIndex, entry.value);
		},
		{
			stopOnError: !continueOnFail,
			shouldStop: () => signal?.aborted === true,
			// the first item alone: a cold OAuth2 token is then fetched once, not once per lane
			firstAlone: true,
		},
	);

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome.ok) {
			for (const result of outcome.value) output.push({ ...result, pairedItem: { item: itemIndex } });
		} else if ('error' in outcome) {
			const error = asNodeError(ctx, outcome.error, itemIndex);
			if (!continueOnFail) throw error;
			output.push({ json: errorJson(error), pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
