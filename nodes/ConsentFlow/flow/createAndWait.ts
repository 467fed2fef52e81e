/** Create and Wait for Outcome: create the flow with the resume URL, wait for its outcome (docs/architecture.md). */
import {
	NodeOperationError,
	WAIT_INDEFINITELY,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { asNodeError, errorJson, type RunEnv } from '../../shared/runner';
import { loadConnection } from '../../shared/transport';
import { redactPatterns } from '../../shared/transport/redact';
import { Fields } from '../../shared/validation';
import {
	MINIMISE_DEFAULT,
	MINIMISE_PARAMETER,
	minimiseMode,
	minimiseProperty,
	minimiseValues,
} from '../../shared/webhook/minimise';
import { personalValuesOf } from '../../shared/personal';
import {
	SIGNING_CREDENTIAL,
	signingCredentialCheck,
} from '../../shared/webhook/signing-credential';
import { matchKey } from '../../shared/webhook/webhook-id';
import { isObject } from '../../shared/json';
import { CONNECTION } from '../api';
import { keepAsWaitingInput, resumesWithAllOutputs } from '../../shared/n8n-compat';
import { create, prepareCreate } from './create';
import { RESUME_KEY, RESUME_MATCH_KEY, lastNameOf, resumeUrlOf } from './resume-webhook';
import { flowOptions, showFor } from './common';
import {
	FAILED_INDEX,
	LIMIT_UNITS,
	advanceWait,
	withNotTaken,
	limitDeadline,
	newWaitState,
	outputNames,
	readWaitState,
	type Match,
	waitTimeExceededJson,
	waitingJson,
	type WaitState,
} from './outcome';

export const STATE_KEY = 'sblWait';

const showOnlyForCreateAndWait = showFor('createAndWait');

export const flowCreateAndWaitDescription: INodeProperties[] = [
	{
		displayName:
			"The flow's events go to this execution's own resume URL: no Webhook URL to enter, no second workflow. The execution waits (it survives a restart of n8n) until the first outcome and continues on that output. One applicant (one input item) per execution: see the README for Loop Over Items and sub-workflows.",
		name: 'createAndWaitNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlyForCreateAndWait },
	},
	{
		displayName: 'Limit Wait Time',
		name: 'limitWaitTime',
		type: 'boolean',
		default: false,
		displayOptions: { show: showOnlyForCreateAndWait },
		description: 'Whether to continue on Wait Timed Out after a time (n8n 2.39 or newer)',
	},
	{
		displayName: 'Amount',
		name: 'limitAmount',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 14,
		displayOptions: { show: { ...showOnlyForCreateAndWait, limitWaitTime: [true] } },
		description: 'How long to wait at most, in the unit below',
	},
	{
		displayName: 'Unit',
		name: 'limitUnit',
		type: 'options',
		options: Object.keys(LIMIT_UNITS).map((unit) => ({
			name: unit.charAt(0).toUpperCase() + unit.slice(1),
			value: unit,
		})),
		default: 'days',
		displayOptions: { show: { ...showOnlyForCreateAndWait, limitWaitTime: [true] } },
	},
	minimiseProperty(
		"What the items and the saved wait keep of identity numbers, the authorization code and the applicant's last name",
		showOnlyForCreateAndWait,
	),
	flowOptions('createAndWait'),
];

/** The node's outputs as an n8n expression: four outcomes, and Wait Timed Out when limited. */
export const CONFIGURED_OUTPUTS: `={{${string}}}` = `={{ $parameter.operation === 'createAndWait' ? ${JSON.stringify(
	outputNames(false).map((name) => ({ type: 'main', displayName: name })),
)}.concat($parameter.limitWaitTime === true ? [{ type: 'main', displayName: ${JSON.stringify(
	outputNames(true).at(-1),
)} }] : []) : ['main'] }}`;

function outputCount(ctx: IExecuteFunctions): number {
	return outputNames(ctx.getNodeParameter('limitWaitTime', 0, false) === true).length;
}

function onOutput(
	count: number,
	index: number,
	items: INodeExecutionData[],
): INodeExecutionData[][] {
	return Array.from({ length: count }, (_, i) => (i === index ? items : []));
}

// Minimise Personal Data, with the applicant's names where this run knows them (the input item,
// Last Name). At resume the input is the delivery: a Last Name expression reading the input item
// finds nothing. It runs on the one input item (start and resume both check there is exactly one).
// The flow's id is shown as the service gave it: the id Delete takes and events are matched on
// (a name's letters inside it are no name); the delivery's own copy in outcomeEvent is minimised.
function minimiser(ctx: IExecuteFunctions): (json: Record<string, unknown>) => IDataObject {
	const lastName = lastNameOf(() => ctx.getNodeParameter('lastName', 0));
	const mode = minimiseMode(ctx.getNodeParameter(MINIMISE_PARAMETER, 0, MINIMISE_DEFAULT));
	const { names } = personalValuesOf(ctx.getInputData()[0].json, { lastName });
	return (json) => {
		const out = minimiseValues(json, mode, names) as IDataObject;
		return 'flowId' in json ? { ...out, flowId: json.flowId as IDataObject['flowId'] } : out;
	};
}

/** Waits (again) until the next delivery or the deadline; the saved input holds only Wait Timed Out. */
async function waitFor(
	ctx: IExecuteFunctions,
	state: WaitState,
	count: number,
): Promise<INodeExecutionData[][]> {
	ctx.getContext('node')[STATE_KEY] = state;
	const minimise = minimiser(ctx);
	const limited = state.deadline !== null;
	const timedOut = { json: minimise(waitTimeExceededJson(state)), pairedItem: { item: 0 } };
	keepAsWaitingInput(ctx, onOutput(count, count - 1, limited ? [timedOut] : []), limited);
	await ctx.putExecutionToWait(limited ? new Date(state.deadline!) : WAIT_INDEFINITELY);
	const waiting = { json: minimise(waitingJson(state)), pairedItem: { item: 0 } };
	return onOutput(count, 0, [waiting]);
}

/** Throws the error of a refused run, or with Continue On Fail puts it on Failed/Expired for every input item. */
function refuser(ctx: IExecuteFunctions, count: number) {
	const items = ctx.getInputData();
	const continueOnFail = ctx.continueOnFail();
	return (error: unknown, redact = redactPatterns): INodeExecutionData[][] => {
		const nodeError = asNodeError(ctx, error, 0, redact);
		if (!continueOnFail) throw nodeError;
		const failed = items.map((_, item) => ({ json: errorJson(nodeError), pairedItem: { item } }));
		return onOutput(count, FAILED_INDEX, failed);
	};
}

/** First run: check everything, create the flow with the resume URL, wait. */
async function start(
	ctx: IExecuteFunctions,
	properties: readonly INodeProperties[],
): Promise<INodeExecutionData[][]> {
	const count = outputCount(ctx);
	const refuse = refuser(ctx, count);
	const { length } = ctx.getInputData();
	if (length !== 1) {
		const message = `Create and Wait for Outcome handles one applicant per execution, and got ${length} items`;
		return refuse(
			new NodeOperationError(ctx.getNode(), message, {
				itemIndex: 0,
				description:
					'Put the node inside Loop Over Items (batch size 1), or call a sub-workflow per item (Execute Workflow, "Run once for each item") that starts with this node, so that every applicant has its own wait.',
			}),
		);
	}

	let redact = redactPatterns;
	try {
		const connection = await loadConnection(ctx, CONNECTION);
		redact = connection.redact;
		const fields = new Fields(ctx.getNode(), properties);
		const secret = await checkSigningCredential(ctx);
		const resumeUrl = resumeUrlOf(ctx, connection.production);
		const deadline = waitDeadline(ctx, resumeUrl);
		const state = await createFlow(ctx, { connection, fields }, resumeUrl, deadline, secret);
		return await waitFor(ctx, state, count);
	} catch (error) {
		return refuse(error, redact);
	}
}

async function checkSigningCredential(ctx: IExecuteFunctions): Promise<string> {
	const signing = await ctx.getCredentials<IDataObject>(SIGNING_CREDENTIAL, 0);
	const problem = signingCredentialCheck(signing);
	if (problem === null) return String(signing.secret);
	throw new NodeOperationError(
		ctx.getNode(),
		`The Webhook Signing credential cannot be used: ${problem}`,
		{
			itemIndex: 0,
			description:
				'Every delivery to the resume URL is verified with it; fix the credential before any flow is created.',
		},
	);
}

/** Limit Wait Time's deadline (ISO), or null when the wait is not limited. */
function waitDeadline(ctx: IExecuteFunctions, resumeUrl: string): string | null {
	if (ctx.getNodeParameter('limitWaitTime', 0, false) !== true) return null;
	const node = ctx.getNode();
	const limit = limitDeadline(
		ctx.getNodeParameter('limitAmount', 0, 14),
		ctx.getNodeParameter('limitUnit', 0, 'days'),
		Date.now(),
	);
	if ('error' in limit) {
		throw new NodeOperationError(
			node,
			`"Limit Wait Time → ${limit.field === 'limitUnit' ? 'Unit' : 'Amount'}" ${limit.error}`,
			{ itemIndex: 0 },
		);
	}
	// older n8n would lose Wait Timed Out or put it on Data Received: refused before any flow
	if (!new URL(resumeUrl).searchParams.has('signature') || !resumesWithAllOutputs()) {
		throw new NodeOperationError(node, 'Limit Wait Time needs n8n 2.39 or newer', {
			itemIndex: 0,
			description:
				'This n8n resumes a timed-out wait on the first output only, so Wait Timed Out would be lost or land on Data Received. Switch Limit Wait Time off (the service reports user.timedOut after about 10 days), or update n8n.',
		});
	}
	return limit.deadline.toISOString();
}

/** Creates the flow with the resume URL as its webhook; the wait state of what the service answered. */
async function createFlow(
	ctx: IExecuteFunctions,
	env: RunEnv,
	resumeUrl: string,
	deadline: string | null,
	secret: string,
): Promise<WaitState> {
	const prepared = prepareCreate(ctx, env, 0, resumeUrl);
	const [created] = await create.run(ctx, env, 0, prepared);
	const fresh = newWaitState(created.json, new Date().toISOString(), deadline);
	// what the wait saves is minimised too (an externalId may be the applicant's number or name);
	// it is matched by a keyed hash of the value as sent, never by what minimising made of it
	const state = {
		...fresh,
		externalIdKey: fresh.externalId === null ? null : matchKey(fresh.externalId, secret),
		...minimiser(ctx)({ externalId: fresh.externalId, href: fresh.href }),
	};
	if (state.flowId !== null) return state;
	throw new NodeOperationError(
		ctx.getNode(),
		"The service's answer to Create has no usable flow ID, so this execution cannot tell its flow's events from another flow's and does not wait",
		{
			itemIndex: 0,
			description: `The flow was created at the service${state.href === null ? '' : ` (${state.href})`}, but its answer has no id (text or number). Use Flow → Create with the Consent Flow Trigger instead, and delete the flow if it should not go on.`,
		},
	);
}

/** A delivery arrived (webhook() resumed the execution): decide, then wait again or continue. */
async function resume(
	ctx: IExecuteFunctions,
	state: WaitState,
	delivery: IDataObject,
	carried: IDataObject,
): Promise<INodeExecutionData[][]> {
	const count = outputCount(ctx);
	const step = advanceWait(
		state,
		delivery,
		new Date().toISOString(),
		carried[RESUME_MATCH_KEY] as unknown as Match,
	);
	if (step.kind === 'foreign') {
		// names, ids and the reason; never the payload
		ctx.logger.warn(
			`Consent Flow "${ctx.getNode().name}" in workflow ${ctx.getWorkflow().id}: a signed ${String(delivery.event ?? 'event')} (webhookId ${String(delivery.webhookId ?? 'none')}) at the resume URL was not taken: ${step.reason}. The execution keeps waiting; the waiting item lists it under notTaken.`,
		);
		return await waitFor(ctx, withNotTaken(state, delivery, step.reason), count);
	}
	if (step.kind !== 'outcome') {
		return await waitFor(ctx, step.kind === 'intermediate' ? step.state : state, count);
	}
	delete ctx.getContext('node')[STATE_KEY];
	return onOutput(count, step.output, [
		{ json: minimiser(ctx)(step.json), pairedItem: { item: 0 } },
	]);
}

/** execute() of the operation; `properties` are the node's (labels of validation messages). */
export async function executeCreateAndWait(
	ctx: IExecuteFunctions,
	properties: readonly INodeProperties[],
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const carried = items.length === 1 ? items[0].json[RESUME_KEY] : undefined;
	const state = readWaitState(ctx.getContext('node')[STATE_KEY]);
	if (isObject(carried) && state !== undefined) {
		return await resume(ctx, state, carried as IDataObject, items[0].json);
	}
	return await start(ctx, properties);
}
