import type { INodeType, IWebhookResponseData } from 'n8n-workflow';

export interface HarnessDatabase {
	/** Static data as stored JSON; null until n8n first writes it. */
	staticData: string | null;
	/** How many times static data was saved. */
	writes: number;
	read(): Record<string, unknown> | null;
}

export interface HarnessDelivery {
	result?: IWebhookResponseData;
	staticDataSaved?: boolean;
	/** The request's headers as Node parsed them. */
	requestHeaders?: Record<string, string | string[] | undefined>;
	error?: Error;
}

export interface Harness {
	url: string;
	db: HarnessDatabase;
	executions: Array<{
		workflowData: NonNullable<IWebhookResponseData['workflowData']>;
		requestHeaders: Record<string, string | string[] | undefined>;
		/** failWorkflow said the run failed. */
		failed: boolean;
	}>;
	deliveries: HarnessDelivery[];
	/** Requests whose headers arrived (the body may still be on its way). */
	readonly requestsStarted: number;
	/** How many times the node called getCredentials (n8n reads and decrypts each time). */
	readonly credentialReads: number;
	/** How many times execute() called getCredentials. */
	readonly executionCredentialReads: number;
	/** Changes the stored credential under the same id (null: n8n finds none). */
	setCredentials(value: Record<string, unknown> | null): void;
	/** Executions deferred and not run yet. */
	readonly pendingExecutions: number;
	/** Runs the executions deferred so far (deferExecutions), in arrival order. */
	drain(): Promise<void>;
	/** Stops listening as n8n does first on SIGTERM (open connections stay, new ones are refused). */
	stopListening(): void;
	close(): Promise<void>;
}

export interface HarnessOptions {
	createNode: () => INodeType;
	parameters?: Record<string, unknown>;
	/** The node's version (default 1; parameter defaults follow it). */
	typeVersion?: number;
	credentials?: Record<string, unknown> | null;
	db?: HarnessDatabase;
	provideRawBody?: boolean;
	nodeName?: string;
	/** 'webhook': the Production URL (default); 'manual': a test URL (static data never saved). */
	mode?: 'webhook' | 'manual';
	/** true → the run counts as failed ("When the Workflow Finishes" answers 500). */
	failWorkflow?: (
		outputs: NonNullable<IWebhookResponseData['workflowData']>,
	) => boolean | Promise<boolean>;
	/** true → n8n cannot store the execution: it answers 500 and nothing runs. */
	storeFails?: () => boolean;
	/** Answer "Immediately" deliveries first and run their executions on drain(). */
	deferExecutions?: boolean;
	/** The credential's id (default: one per distinct credential data). */
	credentialId?: string;
	/** 2 (default): n8n 2.41, native description resolvers; 1: templates evaluated (n8n 1.x). */
	n8nMajor?: 1 | 2;
	/** Awaited where WorkflowRunner.run() stores the execution (after webhook() returned). */
	beforeStore?: (delivery: HarnessDelivery) => Promise<void>;
	/** How long the webhook's getCredentials takes, in ms (default 0). */
	credentialReadMs?: number;
}

export function startHarness(options: HarnessOptions): Promise<Harness>;
export function harnessMajor(): 1 | 2;
export function createDatabase(initial?: Record<string, unknown> | null): HarnessDatabase;
export const CREDENTIAL_TYPE: string;

export function postInTwoParts(
	url: string,
	body: Buffer,
	headers: Record<string, string>,
	between: () => Promise<void>,
	split?: number,
): Promise<{
	status: number;
	headers: Record<string, string | string[] | undefined>;
	json: unknown;
}>;

export function postAndHangUp(
	url: string,
	body: string,
	headers: Record<string, string>,
	hangUp: () => Promise<void>,
): Promise<void>;
