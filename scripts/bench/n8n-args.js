'use strict';
// `npm run bench:n8n`'s command line (the options are described at the top of scripts/bench/n8n.js).

function parseArgs(argv) {
	const quick = argv.includes('--quick');
	const out = {
		quick,
		reps: quick ? 1 : 3,
		// part 2: one receiver's runs spread by 10-55 % on this shared machine, more than the gaps
		deliveryReps: quick ? 1 : 5,
		items: quick ? 100 : 1000,
		deliveries: quick ? 60 : 300,
		warmDeliveries: quick ? 10 : 100,
		senders: 8,
		latency: 20,
		levels: [1, 5, 10, 20],
		write: !quick,
		dedupeOff: false,
		rememberedVariant: null,
		deliveries2: true,
		rateLimit: quick ? 20 : 50,
		rateItems: quick ? 100 : 1000,
		onlyRateLimit: false,
		onlyDeliveries: false,
		n8nEnv: {},
		lazy: true,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const num = () => {
			const v = Number(argv[++i]);
			if (!Number.isFinite(v) || v < 0) throw new Error(`${a} needs a number`);
			return v;
		};
		if (a === '--quick') continue;
		else if (a === '--reps') out.reps = Math.max(1, num());
		else if (a === '--items') out.items = Math.max(1, num());
		else if (a === '--deliveries') out.deliveries = Math.max(1, num());
		else if (a === '--delivery-reps') out.deliveryReps = Math.max(1, num());
		else if (a === '--senders') out.senders = Math.max(1, num());
		else if (a === '--latency') out.latency = num();
		else if (a === '--levels')
			out.levels = argv[++i]
				.split(',')
				.map(Number)
				.filter((n) => n >= 1);
		else if (a === '--dedupe-off') out.dedupeOff = true;
		else if (a === '--remembered-variant') out.rememberedVariant = Math.max(1, num());
		else if (a === '--no-deliveries') out.deliveries2 = false;
		else if (a === '--no-lazy') out.lazy = false;
		else if (a === '--rate-limit') out.rateLimit = num();
		else if (a === '--only-rate-limit') out.onlyRateLimit = true;
		else if (a === '--only-deliveries') out.onlyDeliveries = true;
		else if (a === '--n8n-env') {
			const [name, ...value] = String(argv[++i] ?? '').split('=');
			if (!/^[A-Z0-9_]+$/.test(name) || value.length === 0)
				throw new Error('--n8n-env needs NAME=VALUE');
			out.n8nEnv[name] = value.join('=');
		} else if (a === '--write') out.write = true;
		else if (a === '--no-write') out.write = false;
		else
			throw new Error(`unknown argument ${a} (see the comment at the top of scripts/bench/n8n.js)`);
	}
	return out;
}

module.exports = { parseArgs };
