"""The fake API the tests talk to: tao's own (tao/fake_api, which `tao port-test` runs too),
and `sdk`, the two SDKs stood in for in the test's process (`InProcessSDK`).

    from fake_api import FakeAPI, anthropic_stream     # tao.fake_api, under the tests' name
    from fake_api.sdk import InProcessSDK
"""

from tao.fake_api import *  # noqa: F403  (the names tests import from here)
from tao.fake_api import __all__  # noqa: F401
from tao.fake_api.rules import FLAVOURS  # noqa: F401  (a server's own refusals)
