import type { SimulatorHandle } from '../simulator';

export interface CallOptions {
	method?: string;
	/** Sent as `authorization: Bearer <token>`. */
	token?: string;
	headers?: Record<string, string>;
	/** Sent as JSON (content-type application/json unless headers set one). */
	json?: unknown;
	/** Sent as is (when json is not given). */
	body?: string | Buffer;
}

export interface CallResult<T = unknown> {
	status: number;
	headers: Headers;
	/** The parsed JSON body, null when empty or not JSON. */
	body: T | null;
	text: string;
}

export function call<T = unknown>(url: string, options?: CallOptions): Promise<CallResult<T>>;

/** A control API call (`/__sim<path>`) as the simulator answers it, error statuses included. */
export function controlResponse<T = Record<string, unknown>>(
	sim: Pick<SimulatorHandle, 'url'>,
	method: string,
	path: string,
	body?: unknown,
): Promise<CallResult<T>>;

/** A control API call (`/__sim<path>`) that must succeed: its parsed answer; an error status throws. */
export function control<T = Record<string, unknown>>(
	sim: Pick<SimulatorHandle, 'url'>,
	method: string,
	path: string,
	body?: unknown,
): Promise<T>;
