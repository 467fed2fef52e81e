// The one item runner of both action nodes; its steps and why: docs/architecture.md#runner
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { concurrencyFrom } from './options';
import { Pacer } from './pacer';
import { loadConnection } from './transport';
import type { Connection, ConnectionSpec } from './transport';
import {
	IDENTITY_FIELDS,
	NAME_FIELDS,
	maskIdentityNumbers,
	personalMasker,
	personalValuesOf,
} from './personal';
import { redactPatterns } from './transport/redact';
import type { Redactor } from './transport/redact';
import { Fields, itemLabel } from './validation';

export type OperationResult = Pick<INodeExecutionData, 'json' | 'binary'>;

export interface RunEnv {
	connection: Connection;
	fields: Fields;
}

// Two steps, so that every item is validated before any request is sent.
export interface Operation<P> {
	prepare(ctx: IExecuteFunctions, env: RunEnv, itemIndex: number): P;
	run(
		ctx: IExecuteFunctions,
		env: RunEnv,
		itemIndex: number,
		prepared: P,
	): Promise<OperationResult[]>;
}

type OperationResolver = (ctx: IExecuteFunctions, itemIndex: number) => Operation<unknown>;

export function operationTable(
	table: Record<string, Record<string, Operation<unknown>>>,
): OperationResolver {
	return (ctx, itemIndex) => {
		const resource = ctx.getNodeParameter('resource', itemIndex) as string;
		const operation = ctx.getNodeParameter('operation', itemIndex) as string;
		const byName = Object.prototype.hasOwnProperty.call(table, resource) ? table[resource] : {};
		if (!Object.prototype.hasOwnProperty.call(byName, operation)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${itemLabel(itemIndex)}: the operation "${operation}" on "${resource}" is not supported`,
				{ itemIndex },
			);
		}
		return byName[operation];
	};
}

export interface RunOptions {
	connection: ConnectionSpec;
	properties: readonly INodeProperties[];
	/** Of "Concurrent Requests" when the option is not set; the pacer starts there. */
	defaultConcurrency: number;
}

export function executeOperations(
	spec: RunOptions & { operations: Record<string, Record<string, Operation<unknown>>> },
): (this: IExecuteFunctions) => Promise<INodeExecutionData[][]> {
	const resolve = operationTable(spec.operations);
	return async function (this: IExecuteFunctions) {
		return [await runItems(this, resolve, spec)];
	};
}

type NodeError = NodeApiError | NodeOperationError;

export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	redact: Redactor,
): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.message = redact(error.message);
		if (typeof error.description === 'string') error.description = redact(error.description);
		return error;
	}
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), redact(`${itemLabel(itemIndex)}: ${message}`), {
		itemIndex,
	});
}

export function errorJson(error: NodeError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	const httpCode = Number((error as NodeApiError).httpCode);
	if (Number.isInteger(httpCode) && httpCode > 0) json.httpCode = httpCode;
	if (typeof error.context?.field === 'string') json.field = error.context.field;
	return json;
}

/** `Item 3: "Organization Number"` / `Item 3: input field "lastName"`: the field a validation message names. */
const FIELD_PREFIX = /^Item \d+: (?:input field )?"[^"]*"/;

// Also the item's own identity numbers and names (input item, parameters), but not the field name
// the message starts with: a last name such as "Number" must not hide which field is wrong.
export function validationRedactor(
	ctx: IExecuteFunctions,
	properties: readonly INodeProperties[],
	itemIndex: number,
	redact: Redactor,
): Redactor {
	const parameters: Record<string, unknown> = {};
	for (const { name } of properties) {
		const key = name.toLowerCase();
		if (!IDENTITY_FIELDS.has(key) && !NAME_FIELDS.has(key)) continue;
		try {
			parameters[name] = ctx.getNodeParameter(name, itemIndex, '');
		} catch {
			// the parameter's expression may be what failed: there is no value to mask then
		}
	}
	const mask = personalMasker(personalValuesOf(ctx.getInputData()[itemIndex]?.json, parameters));
	return (text: string): string => {
		const field = FIELD_PREFIX.exec(text)?.[0] ?? '';
		return field + mask(maskIdentityNumbers(redact(text.slice(field.length)), true));
	};
}

type PoolOutcome<T> =
	| { ok: true; value: T }
	| { ok: false; error: unknown }
	| { ok: false; skipped: true };

interface PoolOptions {
	stopOnError?: boolean;
	shouldStop?: () => boolean;
}

/** Index 0 runs alone first; never rejects; an index never started (after a stop) is `skipped`. */
export async function runPool<T>(
	count: number,
	concurrency: number,
	worker: (index: number) => Promise<T>,
	options: PoolOptions = {},
): Promise<Array<PoolOutcome<T>>> {
	const outcomes = Array.from(
		{ length: count },
		(): PoolOutcome<T> => ({ ok: false, skipped: true }),
	);
	const lanes = Math.min(concurrency, count);
	let next = 0;
	let stopped = false;

	async function runNext(): Promise<void> {
		if (options.shouldStop?.()) {
			stopped = true;
			return;
		}
		const index = next++;
		try {
			outcomes[index] = { ok: true, value: await worker(index) };
		} catch (error) {
			outcomes[index] = { ok: false, error };
			if (options.stopOnError) stopped = true;
		}
	}

	if (lanes > 1) await runNext();
	await Promise.all(
		Array.from({ length: lanes }, async () => {
			while (!stopped && next < count) await runNext();
		}),
	);
	return outcomes;
}

type Prepared =
	| { ok: true; operation: Operation<unknown>; value: unknown }
	| { ok: false; error: NodeError };

function failedItem(itemIndex: number, error: NodeError): INodeExecutionData {
	return { json: errorJson(error), pairedItem: { item: itemIndex } };
}

function prepareAll(
	ctx: IExecuteFunctions,
	resolve: OperationResolver,
	env: RunEnv,
	options: RunOptions,
	continueOnFail: boolean,
): Prepared[] {
	const prepared: Prepared[] = [];
	const itemCount = ctx.getInputData().length;
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const operation = resolve(ctx, itemIndex);
			prepared.push({ ok: true, operation, value: operation.prepare(ctx, env, itemIndex) });
		} catch (error) {
			const itemRedact = validationRedactor(
				ctx,
				options.properties,
				itemIndex,
				env.connection.redact,
			);
			const nodeError = asNodeError(ctx, error, itemIndex, itemRedact);
			if (!continueOnFail) throw nodeError;
			prepared.push({ ok: false, error: nodeError });
		}
	}
	return prepared;
}

function collect(
	ctx: IExecuteFunctions,
	outcomes: Array<PoolOutcome<OperationResult[]>>,
	redact: Redactor,
	continueOnFail: boolean,
): INodeExecutionData[] {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < outcomes.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome.ok) {
			for (const result of outcome.value)
				output.push({ ...result, pairedItem: { item: itemIndex } });
			continue;
		}
		const error =
			'error' in outcome
				? asNodeError(ctx, outcome.error, itemIndex, redact)
				: new NodeOperationError(
						ctx.getNode(),
						`${itemLabel(itemIndex)}: not sent, the execution was stopped`,
						{ itemIndex },
					);
		if (!continueOnFail) throw error;
		output.push(failedItem(itemIndex, error));
	}
	return output;
}

export async function runItems(
	ctx: IExecuteFunctions,
	resolve: OperationResolver,
	options: RunOptions,
): Promise<INodeExecutionData[]> {
	const concurrency = concurrencyFrom(ctx, options.defaultConcurrency);
	const itemCount = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	let env: RunEnv;
	try {
		// the pacer starts at the default, or lower when Concurrent Requests is lower
		const pacer = new Pacer(options.defaultConcurrency, concurrency);
		const connection = { ...(await loadConnection(ctx, options.connection)), pacer };
		env = { connection, fields: new Fields(ctx.getNode(), options.properties) };
	} catch (error) {
		const nodeError = asNodeError(ctx, error, 0, redactPatterns);
		if (!continueOnFail) throw nodeError;
		return Array.from({ length: itemCount }, (_, itemIndex) => failedItem(itemIndex, nodeError));
	}
	const prepared = prepareAll(ctx, resolve, env, options, continueOnFail);
	const signal = ctx.getExecutionCancelSignal?.();
	const outcomes = await runPool<OperationResult[]>(
		itemCount,
		concurrency,
		async (itemIndex) => {
			const entry = prepared[itemIndex];
			if (!entry.ok) throw entry.error;
			return await entry.operation.run(ctx, env, itemIndex, entry.value);
		},
		{
			stopOnError: !continueOnFail,
			shouldStop: () => signal?.aborted === true,
		},
	);
	return collect(ctx, outcomes, env.connection.redact, continueOnFail);
}
