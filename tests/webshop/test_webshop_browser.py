"""A person's path through the served shop, in headless Chromium: search, open an item, choose
options, buy, read the score; and a recorded episode replayed page by page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait

from gui_gym.core.trajectory import Step, Trajectory, write_jsonl
from gui_gym.webshop.engine import Session, Shop
from gui_gym.webshop.expert import next_action
from gui_gym.webshop.server import ShopServer, read_replays, serve


@pytest.fixture(scope="module")
def shop_server(tmp_path_factory) -> Iterator[tuple[ShopServer, list[str]]]:
    shop = Shop.generated(num_products=300)
    goal = next(i for i, g in enumerate(shop.goals) if len(g["goal_options"]) >= 2)
    session, actions = Session(shop, goal), []
    while not session.done:
        actions.append(next_action(session))
        session.step(actions[-1])
    assert session.reward_info is not None and session.reward_info.score == 1.0
    path = tmp_path_factory.mktemp("episodes") / "oracle.jsonl"
    t = Trajectory(task_id=f"human:{goal}", instruction=session.instruction)
    t.steps = [Step(action=a) for a in actions]
    write_jsonl(str(path), [t])
    server = serve(shop, replays=read_replays(path))
    yield server, [f"human:{goal}", *actions]
    server.shutdown()


def submit(browser, button) -> None:
    """Click a form's button (or a link) and wait until the next page has replaced this one."""
    button.click()
    WebDriverWait(browser.driver, 10).until(staleness_of(button))


def test_a_person_shops_and_reads_the_score(browser, shop_server) -> None:
    server, (goal, *actions) = shop_server
    browser.open(server.url + "/")
    browser.fill("#task", goal)
    submit(browser, browser.driver.find_element("css selector", "#start"))  # wait for the shop page
    instruction = browser.text("#instruction-text")
    assert instruction.startswith("Instruction:")
    for action in actions:  # the careful shopper's actions, done with the mouse and keyboard
        if action.startswith("search["):
            browser.fill("#search_input", action[len("search[") : -1])
            submit(browser, browser.driver.find_element("css selector", "form.search button"))
        else:
            label = action[len("click[") : -1]
            buttons = browser.driver.find_elements("css selector", "button")
            clicked = next((b for b in buttons if b.text.strip().lower() == label), None)
            assert clicked is not None, f"no button {label!r} on {browser.url}"
            submit(browser, clicked)
        if action == "click[buy now]":
            break
    assert browser.text("#score") == "Score: 1.000"
    assert "Thank you for shopping with us!" in browser.page_source()


def test_a_recorded_episode_replays(browser, shop_server) -> None:
    server, (_, *actions) = shop_server
    browser.open(server.url + "/")
    find = browser.driver.find_element
    submit(browser, find("css selector", 'a[href="/replay/0?step=0"]'))
    for _ in actions:
        submit(browser, find("css selector", "#next-step"))
    assert browser.text("#score") == "Score: 1.000"
    submit(browser, find("css selector", "#prev-step"))
    assert "Buy Now" in browser.page_source()


def test_markup_in_a_query_stays_text(browser, shop_server) -> None:
    server, _ = shop_server
    browser.open(server.url + "/")
    submit(browser, browser.driver.find_element("css selector", "#start"))  # wait for the shop page
    browser.fill("#search_input", '<img src=x onerror="document.title=1">"><b>bold</b>')
    submit(browser, browser.driver.find_element("css selector", "form.search button"))
    assert "Total results" in browser.page_source()
    assert browser.driver.title == "WebShop"
    assert not browser.driver.find_elements("css selector", "img[src=x]")
    assert not browser.driver.find_elements("css selector", "b")
