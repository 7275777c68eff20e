"""How the sample pass draws a person's known points: the knowledge models' kinds as the numbers the kernels
branch on (``core.knowledge`` names them; they live here so the kernels import nothing above them)."""

UNIFORM, ACTIVITY, TOP, RAREST, GIVEN = 0, 1, 2, 3, 4
