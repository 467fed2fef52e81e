'use strict';

// CPU time from /proc (Linux): user + system seconds, every thread included. On a shared virtual
// machine it still rises with the host's load (measured: rate × CPU per delivery stays ≈ the cores).

const fs = require('node:fs');

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime (fields 14 and 15 of /proc/<pid>/stat) and the process group (field 5). */
function readStat(pid) {
	const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return { pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** The pids of a process group, with their ticks at the time of the listing. */
function groupStats(pgid) {
	const stats = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readStat(entry);
			if (stat.pgrp === pgid) stats.push({ pid: entry, ticks: stat.ticks });
		} catch {
			// the process ended between the listing and the read
		}
	}
	return stats;
}

/** CPU seconds of one process. */
function pidCpuSeconds(pid) {
	return readStat(pid).ticks / TICKS_PER_SECOND;
}

/** CPU seconds of every process in a process group (n8n and its task runner: one group). */
function groupCpuSeconds(pgid) {
	return groupStats(pgid).reduce((sum, { ticks }) => sum + ticks, 0) / TICKS_PER_SECOND;
}

/** CPU seconds per thread name ("process name/thread name", from comm) in a process group. */
function groupCpuByThread(pgid) {
	const byName = new Map();
	for (const { pid } of groupStats(pgid)) {
		try {
			const processName = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
			for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
				const thread = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
				const name = `${processName}/${thread.replace(/\d+$/, 'N')}`;
				byName.set(
					name,
					(byName.get(name) ?? 0) + readStat(`${pid}/task/${tid}`).ticks / TICKS_PER_SECOND,
				);
			}
		} catch {
			// the process or thread ended between the listing and the read
		}
	}
	return byName;
}

module.exports = { pidCpuSeconds, groupCpuSeconds, groupCpuByThread };
