/**
 * The one item runner of both action nodes:
 *  1. the credential is read once (transport/connection.ts);
 *  2. every item's parameters are read and checked (`prepare`, no I/O) before any request is
 *     sent: an invalid item stops the node unless "Continue On Fail" is on, then only that item
 *     fails;
 *  3. the items run (`run`) in a pool of `concurrency` (the first item alone, so that n8n fetches
 *     a missing token once), stopping when the execution is cancelled;
 *  4. outputs are placed by input index, so order and `pairedItem` follow the input whatever
 *     order the answers arrive in. A failed item yields one `{ json: { error, … } }` item when
 *     continuing on fail (the same shape in both nodes); otherwise the failure of the lowest item
 *     index is thrown. Every message passes the credential's redactor; a failed `prepare` (a
 *     validation error) also the item's own personal values (`validationRedactor`).
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { concurrencyFrom } from './options';
import { runPool } from './pool';
import { Pacer } from './pacer';
import { loadConnection } from './transport';
import type { Connection, ConnectionSpec } from './transport';
import { IDENTITY_FIELDS, NAME_FIELDS, maskIdentityNumbers, personalMasker, personalValuesOf } from './personal';
import { redactPatterns } from './transport/redact';
import type { Redactor } from './transport/redact';
import { Fields, itemLabel } from './validation';

/** One output item of an operation; the runner adds `pairedItem`. */
export interface OperationResult {
	json: IDataObject;
	binary?: IBinaryKeyData;
}

/** What an operation gets besides n8n's context: the connection and the node's field labels. */
export interface RunEnv {
	connection: Connection;
	fields: Fields;
}

/**
 * An operation in two steps so that every item is validated before any request is sent:
 * `prepare` reads and checks the item's parameters (no I/O, throws a NodeOperationError naming
 * item and field); `run` sends the request(s) and returns the item's output (0…n items).
 */
export interface Operation<P> {
	prepare(ctx: IExecuteFunctions, env: RunEnv, itemIndex: number): P;
	run(
		ctx: IExecuteFunctions,
		env: RunEnv,
		itemIndex: number,
		prepared: P,
	): Promise<OperationResult[]>;
}

/** The operation an item asks for (resource and operation parameters), or an error naming them. */
export type OperationResolver = (ctx: IExecuteFunctions, itemIndex: number) => Operation<unknown>;

/** A resolver over a `{ resource: { operation: Operation } }` table. */
export function operationTable(
	table: Record<string, Record<string, Operation<unknown>>>,
): OperationResolver {
	return (ctx, itemIndex) => {
		const resource = ctx.getNodeParameter('resource', itemIndex) as string;
		const operation = ctx.getNodeParameter('operation', itemIndex) as string;
		const found = Object.prototype.hasOwnProperty.call(table, resource)
			? table[resource][operation]
			: undefined;
		if (!found || !Object.prototype.hasOwnProperty.call(table[resource], operation)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${itemLabel(itemIndex)}: the operation "${operation}" on "${resource}" is not supported`,
				{ itemIndex },
			);
		}
		return found;
	};
}

/** An action node's `execute`: its operation table through the runner, at its Concurrent Requests. */
export function executeOperations(spec: {
	operations: Record<string, Record<string, Operation<unknown>>>;
	connection: ConnectionSpec;
	properties: readonly INodeProperties[];
	defaultConcurrency: number;
}): (this: IExecuteFunctions) => Promise<INodeExecutionData[][]> {
	const resolve = operationTable(spec.operations);
	return async function (this: IExecuteFunctions) {
		const concurrency = concurrencyFrom(this, spec.defaultConcurrency);
		return [
			await runItems(this, resolve, {
				connection: spec.connection,
				properties: spec.properties,
				concurrency,
				startConcurrency: spec.defaultConcurrency,
			}),
		];
	};
}

export interface RunOptions {
	connection: ConnectionSpec;
	/** The node's property definitions (labels of validation messages). */
	properties: readonly INodeProperties[];
	/** Items in flight at once at most (the user's Concurrent Requests). */
	concurrency: number;
	/** Where the adaptive concurrency starts (the node's default; at most `concurrency`). */
	startConcurrency?: number;
}

type NodeError = NodeApiError | NodeOperationError;

/** Any error as a NodeApiError/NodeOperationError naming the item, its texts redacted. */
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

/** The json of the output item that stands for a failed input item (both nodes). */
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

/**
 * The redactor of a validation error of one item: the credential's, then identity numbers with
 * 10 digits too (a typed number may have lost its leading 0), then the item's own identity numbers
 * and names, read from its input item (Map Automatically) and from the node's parameters of those
 * names (Map Each Field Manually). The field name the message starts with is kept: a last name
 * such as "Number" must not hide which field is wrong.
 */
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

type Prepared =
	| { ok: true; operation: Operation<unknown>; value: unknown }
	| { ok: false; error: NodeError };

export async function runItems(
	ctx: IExecuteFunctions,
	resolve: OperationResolver,
	options: RunOptions,
): Promise<INodeExecutionData[]> {
	const itemCount = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	const fail = (itemIndex: number, error: NodeError): INodeExecutionData => ({
		json: errorJson(error),
		pairedItem: { item: itemIndex },
	});

	let env: RunEnv;
	try {
		const connection = await loadConnection(ctx, options.connection);
		// Adaptive concurrency: every HTTP attempt of this execution takes a slot; the slots start
		// at the node's default, grow while answers stay fast and halve on 429/503 (pacer.ts).
		const pacer = new Pacer(
			Math.min(options.startConcurrency ?? options.concurrency, options.concurrency),
			options.concurrency,
		);
		env = {
			connection: { ...connection, pacer },
			fields: new Fields(ctx.getNode(), options.properties),
		};
	} catch (error) {
		const nodeError = asNodeError(ctx, error, 0, redactPatterns);
		if (!continueOnFail) throw nodeError;
		return Array.from({ length: itemCount }, (_, itemIndex) => fail(itemIndex, nodeError));
	}
	const redact = env.connection.redact;

	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const operation = resolve(ctx, itemIndex);
			prepared.push({ ok: true, operation, value: operation.prepare(ctx, env, itemIndex) });
		} catch (error) {
			const itemRedact = validationRedactor(ctx, options.properties, itemIndex, redact);
			const nodeError = asNodeError(ctx, error, itemIndex, itemRedact);
			if (!continueOnFail) throw nodeError;
			prepared.push({ ok: false, error: nodeError });
		}
	}

	const signal = ctx.getExecutionCancelSignal?.();
	const outcomes = await runPool<OperationResult[]>(
		itemCount,
		options.concurrency,
		async (itemIndex) => {
			const entry = prepared[itemIndex];
			if (!entry.ok) throw entry.error;
			return await entry.operation.run(ctx, env, itemIndex, entry.value);
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
						{
							itemIndex,
						},
					);
		if (!continueOnFail) throw error;
		output.push(fail(itemIndex, error));
	}
	return output;
}
