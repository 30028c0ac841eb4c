// The built-in `recommended` rule pack: every family's rules, in one list.
import type { Rule } from '../rule.ts';
import { rules as fs } from './fs.ts';
import { rules as system } from './system.ts';
import { rules as git } from './git.ts';
import { rules as publish } from './publish.ts';
import { rules as infra } from './infra.ts';
import { rules as db } from './db.ts';
import { rules as net } from './net.ts';
import { rules as secrets } from './secrets.ts';
import { rules as exec } from './exec.ts';
import { rules as inlineCode } from './inline-code.ts';
import { rules as obfuscation } from './obfuscation.ts';
import { rules as supply } from './supply.ts';
import { rules as selfmod } from './selfmod.ts';
import { rules as dev } from './dev.ts';
import { rules as files } from './files.ts';
import { rules as web } from './web.ts';
import { rules as mcp } from './mcp.ts';
import { rules as dlp } from './dlp.ts';
import { rules as where } from './where.ts';
import { rules as mass } from './mass.ts';
import { rules as scripts } from './scripts.ts';
import { rules as content } from './content.ts';
import { rules as fetchedCode } from './fetched-code.ts';

export const recommended: readonly Rule[] = [
  ...fs, ...system, ...git, ...publish, ...infra, ...db, ...net, ...secrets,
  ...exec, ...inlineCode, ...obfuscation, ...supply, ...selfmod, ...dev, ...files, ...web, ...mcp,
  ...dlp, ...where, ...mass, ...scripts, ...fetchedCode,
  ...content,
];
