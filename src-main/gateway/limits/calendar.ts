// Budget periods: the calendar day and month in the server's local time zone (a desktop gateway's
// "today" is its user's today), so a daily budget resets at local midnight and a monthly one on the
// 1st at local midnight. Daylight-saving changes are handled by the Date constructor (a 23- or 25-hour day).

export interface Period {
  /** `YYYY-MM-DD`, the key under which a day's spend is stored. */
  day: string;
  /** `YYYY-MM`. */
  month: string;
  /** The first day of the month as `YYYY-MM-01`: days at or after it belong to this month. */
  monthFirstDay: string;
  /** When the day / month ends (ms since the epoch): the next local midnight / the next 1st. */
  dayEnd: number;
  monthEnd: number;
}

const pad = (value: number) => String(value).padStart(2, '0');

export function periodAt(now: number): Period {
  const date = new Date(now);
  const year = date.getFullYear();
  const month = date.getMonth();
  const dayOfMonth = date.getDate();
  const monthText = `${year}-${pad(month + 1)}`;
  return {
    day: `${monthText}-${pad(dayOfMonth)}`,
    month: monthText,
    monthFirstDay: `${monthText}-01`,
    dayEnd: new Date(year, month, dayOfMonth + 1).getTime(),
    monthEnd: new Date(year, month + 1, 1).getTime(),
  };
}

/** ISO 8601 with the local offset (`2026-11-25T00:00:00+01:00`), so a reset time reads as the user's clock. */
export function localIsoTime(ms: number): string {
  const date = new Date(ms);
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}
