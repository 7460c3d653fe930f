"""Writes api_fixture.json: what upstream's own BFCL API classes answer to hand-written call
sequences (edge cases, wrong types, errors), for api-fixture.test.ts.

Needs upstream's package `bfcl_eval` (PyPI bfcl-eval==2026.3.23) importable, e.g. the project
virtualenv made from requirements-test.txt, or an unpacked wheel passed as the first argument:

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/w/x
    python3 src/eval/bfcl/testing/gen_api_fixture.py /tmp/w/x        # needs mpmath==1.3.0

Every case runs in its own Python process: upstream keeps mutable defaults and long-context
constants as module globals, which would otherwise leak from one case into the next. Results
longer than 500 characters and every state are stored as sha256 of their text (the state as
json.dumps(..., sort_keys=True)); short results and the final state of short-context cases are
stored in full. No benchmark data is stored: scenarios and calls are written here by hand.
"""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

FS_ROOT = {"root": {"alex": {"type": "directory", "contents": {
    "docs": {"type": "directory", "contents": {
        "notes.txt": {"type": "file", "content": "beta\nalpha\r\ngamma delta\x0bepsilon\n"},
        "sub": {"type": "directory", "contents": {}},
    }},
    ".hidden": {"type": "file", "content": "secret"},
    "g.txt": {"type": "file", "content": "caf\u00e9 line one\nline two\n\u4e2d\u6587 three"},
    "empty": {"type": "directory", "contents": {}},
}}}}

TRAVEL = {"access_token": "tok", "token_expires_in": 2, "token_type": "Bearer", "user_first_name": "Ann", "user_last_name": "Lee",
          "budget_limit": None,
          "credit_card_list": {"card1": {"card_number": "4111", "expiration_date": "12/30", "cardholder_name": "Ann Lee",
                                         "card_verification_number": 123, "balance": 5000.0},
                               "card2": {"card_number": "4222", "expiration_date": "01/29", "cardholder_name": "Ann Lee",
                                         "card_verification_number": 456, "balance": 10}},
          "booking_record": {"b1": {"card_id": "card1", "travel_date": "2024-12-01", "travel_from": "SFO", "travel_to": "LAX",
                                    "travel_class": "economy", "travel_cost": 400.0, "transaction_id": "t1"},
                             "b2": {"card_id": "card1", "travel_date": "2024-12-02", "travel_from": "LAX", "travel_to": "SFO",
                                    "travel_class": "economy", "travel_cost": 100.0, "transaction_id": "t2"}}}

CASES = [
    {"name": "file system", "classes": ["GorillaFileSystem"], "config": {"GorillaFileSystem": FS_ROOT}, "calls": [
        "pwd()", "ls()", "ls(a=True)", "cd(folder='docs')", "pwd()", "cd(folder='..')", "cd(folder='..')",
        "cd(folder='nope')", "cd(folder='docs/sub')", "cd(folder='docs/')", "cd(folder='/')", "cd(folder=5)",
        "mkdir(dir_name='new')", "mkdir(dir_name='new')", "mkdir(dir_name='bad/name')", "mkdir(dir_name=7)",
        "touch(file_name='f.txt')", "touch(file_name='f.txt')", "touch(file_name='a:b')",
        "echo(content='hello\\nworld\\n', file_name='f.txt')", "echo(content='x')", "echo(content='y', file_name='missing.txt')",
        "echo(content='z', file_name='')", "echo(content='w', file_name='new')",
        "cat(file_name='f.txt')", "cat(file_name='new')", "cat(file_name='nope')", "cat(file_name='a|b')",
        "find()", "find(path='/', name='t')", "find(path='docs', name='n')", "find(path='nope')", "find(path='docs/sub/')",
        "wc(file_name='g.txt')", "wc(file_name='g.txt', mode='w')", "wc(file_name='g.txt', mode='c')", "wc(file_name='g.txt', mode='x')",
        "wc(file_name='nope')", "sort(file_name='g.txt')", "grep(file_name='g.txt', pattern='line')", "grep(file_name='g.txt', pattern=1)",
        "du()", "du(human_readable=True)", "tail(file_name='g.txt', lines=1)", "tail(file_name='g.txt', lines=0)",
        "tail(file_name='g.txt', lines=-1)", "tail(file_name='g.txt', lines=100)", "tail(file_name='g.txt')",
        "diff(file_name1='f.txt', file_name2='g.txt')", "diff(file_name1='f.txt', file_name2='nope')",
        "mv(source='f.txt', destination='renamed.txt')", "mv(source='renamed.txt', destination='docs')", "mv(source='x', destination='y')",
        "mv(source='g.txt', destination='a/b')", "mv(source='g.txt', destination='.hidden')",
        "cp(source='g.txt', destination='docs')", "cp(source='g.txt', destination='docs')", "cp(source='docs', destination='docs2')",
        "cp(source='g.txt', destination='copy.txt')", "rm(file_name='docs2')", "rm(file_name='nope')",
        "rmdir(dir_name='docs')", "rmdir(dir_name='empty')", "rmdir(dir_name='g.txt')", "rmdir(dir_name='nope')",
        "cd(folder='docs')", "pwd()", "ls()", "cd(folder='sub')", "pwd()", "cd(folder='..')", "cd(folder='..')",
        "unknown_func(x=1)", "kill()", "ls(1, 2)", "ls(b=1)", "cd()", "cd('a', folder='b')", "mv('only')",
        "echo(content=5, file_name='copy.txt')", "cat(file_name='copy.txt')", "wc(file_name='copy.txt')", "du()",
    ]},
    {"name": "math", "classes": ["MathAPI"], "config": {}, "calls": [
        "mean(numbers=[1, 2, 3])", "mean(numbers=[])", "mean(numbers='abc')", "mean(numbers=[1.5, 2, 3])",
        "standard_deviation(numbers=[2, 4, 4, 4, 5, 5, 7, 9])", "standard_deviation(numbers=[1.1, 2.2, 3.3])",
        "si_unit_conversion(value=5, unit_in='km', unit_out='m')", "si_unit_conversion(value=1.5, unit_in='cm', unit_out='nm')",
        "si_unit_conversion(value='5', unit_in='m', unit_out='km')", "si_unit_conversion(value=1, unit_in='mi', unit_out='km')",
        "imperial_si_conversion(value=100, unit_in='celsius', unit_out='fahrenheit')",
        "imperial_si_conversion(value=212.0, unit_in='fahrenheit', unit_out='celsius')",
        "imperial_si_conversion(value=10, unit_in='kg', unit_out='lb')", "imperial_si_conversion(value=5, unit_in='m', unit_out='m')",
        "imperial_si_conversion(value=5, unit_in='m', unit_out='parsec')",
        "add(a=1, b=2)", "add(a=1.5, b=2)", "add(a='a', b='b')", "add(a=1, b='b')", "add(a=[1], b=[2])", "subtract(a=5, b=7.5)",
        "multiply(a=3, b=4)", "multiply(a='a', b=3)", "multiply(a=True, b=2.5)", "divide(a=1, b=3)", "divide(a=1, b=0)",
        "divide(a=7, b=2.0)", "divide(a='x', b=2)", "power(base=2, exponent=10)", "power(base=2, exponent=-1)",
        "power(base=2.5, exponent=2)", "power(base=9, exponent=0.5)", "power(base=1.1, exponent=3.7)",
        "square_root(number=16, precision=5)", "square_root(number=2, precision=10)", "square_root(number=0.25, precision=3)",
        "square_root(number=-1, precision=5)", "square_root(number=100, precision=2)", "square_root(number=1e10, precision=4)",
        "square_root(number=0.01, precision=6)", "square_root(number=0, precision=5)", "square_root(number=15129, precision=2)",
        "square_root(number=2, precision=2.5)", "square_root(number='4', precision=5)", "square_root(number=10, precision=0)",
        "absolute_value(number=-3)", "absolute_value(number=-2.5)", "absolute_value(number='x')",
        "round_number(number=2.675, decimal_places=2)", "round_number(number=2.5)", "round_number(number=3)",
        "round_number(number=1234, decimal_places=-2)", "round_number(number=1.5, decimal_places=1.0)", "round_number(number=-0.001, decimal_places=2)",
        "percentage(part=1, whole=3)", "percentage(part=5, whole=0)", "min_value(numbers=[3, 1.5, 2])", "min_value(numbers=[])",
        "max_value(numbers=[1, 5, 5.0])", "max_value(numbers=[1, 'a'])", "sum_values(numbers=[0.1, 0.2, 0.3])", "sum_values(numbers=[1, 2, 3])",
        "sum_values(numbers=[1, 2.5, 3])",
        "logarithm(value=100, base=10, precision=10)", "logarithm(value=2, base=3, precision=30)", "logarithm(value=1, base=10, precision=5)",
        "logarithm(value=10, base=1, precision=5)", "logarithm(value=0, base=10, precision=5)", "logarithm(value=1e-10, base=10, precision=20)",
        "logarithm(value=1000, base=10, precision=15)", "logarithm(value=7, base=2, precision=0)", "logarithm(value=5, base=2, precision=50)",
        "logarithm(value=123456789, base=10, precision=3)", "logarithm(value=2.5, base=0.5, precision=12)", "logarithm(value=36.0, base=6.0, precision=4)",
        "logarithm(value=1e300, base=2, precision=25)", "logarithm(value=3, base=10, precision=2.7)",
        "logarithm(value='10', base=10, precision=5)", "logarithm(value='0.1', base=10, precision=5)", "logarithm(value=' 7 ', base='1e3', precision='8')",
        "logarithm(value='abc', base=10, precision=5)", "logarithm(value=None, base=10, precision=5)", "logarithm(value='inf', base=10, precision=5)",
    ]},
    {"name": "twitter", "classes": ["TwitterAPI"], "config": {"TwitterAPI": {}}, "calls": [
        "post_tweet(content='before login')", "authenticate_twitter(username='john', password='wrong')",
        "authenticate_twitter(username='john', password='john123')", "posting_get_login_status()",
        "post_tweet(content='hi')", "post_tweet(content='x', tags=['#A', '#b'], mentions=['@b'])",
        "mention(tweet_id=0, mentioned_usernames=['@c'])", "post_tweet(content='uses the shared default')",
        "mention(tweet_id=1, mentioned_usernames='de')", "mention(tweet_id=9, mentioned_usernames=['@z'])",
        "retweet(tweet_id=0)", "retweet(tweet_id=0)", "retweet(tweet_id=99)", "comment(tweet_id=0, comment_content='nice')",
        "comment(tweet_id=0, comment_content='again')", "get_tweet_comments(tweet_id=0)", "get_tweet_comments(tweet_id=1)",
        "get_tweet(tweet_id=1)", "get_tweet(tweet_id='1')", "get_user_tweets(username='john')", "search_tweets(keyword='#a')",
        "search_tweets(keyword='X')", "follow_user(username_to_follow='carol')", "follow_user(username_to_follow='alice')",
        "unfollow_user(username_to_unfollow='bob')", "unfollow_user(username_to_unfollow='zed')", "list_all_following()",
        "get_user_stats(username='john')", "get_user_stats(username='nobody')", "retweet(tweet_id=[1])",
    ]},
    {"name": "tickets", "classes": ["TicketAPI"], "config": {"TicketAPI": {"ticket_queue": [
        {"id": 7, "title": "old", "description": "d", "status": "Open", "priority": 2, "created_by": "u"}], "ticket_counter": 8}},
     "calls": [
        "create_ticket(title='t0')", "ticket_login(username='u', password='')", "ticket_login(username='u', password='p')",
        "ticket_get_login_status()", "create_ticket(title='t1')", "create_ticket(title='t2', description='d', priority=6)",
        "create_ticket(title='t3', priority=5)", "get_ticket(ticket_id=8)", "get_ticket(ticket_id=99)", "close_ticket(ticket_id=8)",
        "close_ticket(ticket_id=8)", "resolve_ticket(ticket_id=9, resolution='done')", "resolve_ticket(ticket_id=9, resolution='again')",
        "edit_ticket(ticket_id=7, updates={'priority': 3, 'title': None})", "edit_ticket(ticket_id=7, updates={'colour': 'red'})",
        "get_user_tickets()", "get_user_tickets(status='open')", "get_user_tickets(status='RESOLVED')", "logout()", "logout()",
        "get_user_tickets()", "create_ticket(title='x', priority='high')",
    ]},
    {"name": "messages", "classes": ["MessageAPI"], "config": {"MessageAPI": {}}, "calls": [
        "send_message(receiver_id='USR002', message='no login')", "message_login(user_id='USR404')", "message_login(user_id='USR001')",
        "message_get_login_status()", "send_message(receiver_id='USR002', message='hi Bob')", "send_message(receiver_id='USR009', message='x')",
        "send_message(receiver_id='USR003', message='Upload done')", "view_messages_sent()", "delete_message(receiver_id='USR002')",
        "delete_message(receiver_id='USR404')", "search_messages(keyword='UPLOAD')", "get_message_stats()", "add_contact(user_name='Eve')",
        "add_contact(user_name='Alice')", "get_user_id(user='Eve')", "get_user_id(user='Zed')", "list_users()",
        "send_message(receiver_id='USR005', message='welcome')",
    ]},
    {"name": "trading", "classes": ["TradingBot"], "config": {"TradingBot": {}}, "calls": [
        "place_order(order_type='Buy', symbol='AAPL', price=227.16, amount=10)", "trading_login(username='a', password='b')",
        "trading_login(username='a', password='b')", "trading_get_login_status()", "get_current_time()",
        "get_symbol_by_name(name='Apple')", "get_symbol_by_name(name='X')", "get_stock_info(symbol='AAPL')", "get_stock_info(symbol='XX')",
        "get_order_details(order_id=12345)", "get_order_details(order_id=1)", "cancel_order(order_id=12345)", "cancel_order(order_id=12446)",
        "place_order(order_type='Buy', symbol='AAPL', price=227.16, amount=10)", "place_order(order_type='buy', symbol='AAPL', price=100000, amount=100)",
        "place_order(order_type='Sell', symbol='ZZZ', price=1, amount=1)", "place_order(order_type='Sell', symbol='AAPL', price=-1, amount=1)",
        "place_order(order_type='Sell', symbol='GOOG', price=2840, amount=2.7)", "fund_account(amount=500)", "fund_account(amount=0.5)",
        "fund_account(amount=-3)", "withdraw_funds(amount=100)", "get_transaction_history()",
        "get_transaction_history(start_date='2024-09-02')", "get_transaction_history(start_date='2024-9-1', end_date='2024-09-01')",
        "get_transaction_history(start_date='bad')", "get_transaction_history(end_date='2024-02-30')",
        "get_watchlist()", "add_to_watchlist(stock='TSLA')", "add_to_watchlist(stock='NOPE')", "remove_stock_from_watchlist(symbol='NVDA')",
        "remove_stock_from_watchlist(symbol='XX')", "get_available_stocks(sector='Technology')", "get_available_stocks(sector='Food')",
        "filter_stocks_by_price(stocks=['AAPL', 'GOOG', 'TSLA', 'NOPE'], min_price=200, max_price=700)",
        "notify_price_change(stocks=['AAPL', 'TSLA', 'GOOG'], threshold=0.2)", "notify_price_change(stocks=['ZETA'], threshold=0.5)",
        "get_order_history()", "get_account_info()", "trading_logout()", "trading_logout()", "get_watchlist()", "get_order_history()",
        "get_transaction_history()", "get_account_info()",
    ]},
    {"name": "trading, market open", "classes": ["TradingBot"], "config": {"TradingBot": {
        "market_status": "Open", "authenticated": True, "account_info": {"account_id": 1, "balance": 1000, "binding_card": 42},
        "orders": {"7": {"id": 7, "order_type": "Buy", "symbol": "NVDA", "price": 220.34, "amount": 1, "status": "Open"}}}},
     "calls": [
        "withdraw_funds(amount=100.5)", "withdraw_funds(amount=99999999)", "withdraw_funds(amount=10)", "fund_account(amount=20)",
        "get_transaction_history(start_date='2024-09-01', end_date='2024-09-03')", "get_order_details(order_id=7)", "get_order_history()",
        "place_order(order_type='Buy', symbol='NVDA', price=200, amount=50)",
    ]},
    {"name": "travel", "classes": ["TravelAPI"], "config": {"TravelAPI": TRAVEL}, "calls": [
        "travel_get_login_status()", "get_budget_fiscal_year()", "get_credit_card_balance(access_token='tok', card_id='card1')",
        "get_credit_card_balance(access_token='tok', card_id='nope')", "get_credit_card_balance(access_token='bad', card_id='card1')",
        "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-11-15', travel_class='economy')",
        "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-11-16', travel_class='first')",
        "get_flight_cost(travel_from='SFO', travel_to='XXX', travel_date='2024-11-15', travel_class='economy')",
        "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-11-15', travel_class='premium')",
        "book_flight(access_token='tok', card_id='card1', travel_date='2024-11-15', travel_from='SFO', travel_to='LAX', travel_class='business')",
        "book_flight(access_token='tok', card_id='card1', travel_date='15/11/2024', travel_from='SFO', travel_to='LAX', travel_class='economy')",
        "book_flight(access_token='tok', card_id='card2', travel_date='2024-11-15', travel_from='SFO', travel_to='LAX', travel_class='economy')",
        "book_flight(access_token='tok', card_id='card1', travel_date='2024-11-15', travel_from='SFO', travel_to='HND', travel_class='economy')",
        "book_flight(access_token='tok', card_id='card1', travel_date='2024-11-15', travel_from='XYZ', travel_to='LAX', travel_class='economy')",
        "book_flight(access_token='tok', card_id='nope', travel_date='2024-11-15', travel_from='SFO', travel_to='LAX', travel_class='economy')",
        "retrieve_invoice(access_token='tok', booking_id='b1')", "retrieve_invoice(access_token='tok')", "get_booking_history(access_token='tok')",
        "cancel_booking(access_token='tok', booking_id='b1')", "cancel_booking(access_token='wrong', booking_id='b2')",
        "cancel_booking(access_token='tok', booking_id='b1')", "compute_exchange_rate(base_currency='USD', target_currency='EUR', value=100)",
        "compute_exchange_rate(base_currency='EUR', target_currency='USD', value=100)", "compute_exchange_rate(base_currency='RMB', target_currency='USD', value=10)",
        "compute_exchange_rate(base_currency='USD', target_currency='RMB', value=3)", "compute_exchange_rate(base_currency='USD', target_currency='XYZ', value=1)",
        "verify_traveler_information(first_name='Ann', last_name='Lee', date_of_birth='1990-01-01', passport_number='US123')",
        "verify_traveler_information(first_name='Bob', last_name='Lee', date_of_birth='1990-01-01', passport_number='US123')",
        "verify_traveler_information(first_name='Ann', last_name='Lee', date_of_birth='2020-01-01', passport_number='US123')",
        "verify_traveler_information(first_name='Ann', last_name='Lee', date_of_birth='01-01-1990', passport_number='US123')",
        "verify_traveler_information(first_name='Ann', last_name='Lee', date_of_birth='1990-01-01', passport_number='UK1')",
        "set_budget_limit(access_token='tok', budget_limit=1000)", "set_budget_limit(access_token='tok', budget_limit='abc')",
        "get_nearest_airport_by_city(location='Paris')", "get_nearest_airport_by_city(location='Nowhere')",
        "purchase_insurance(access_token='tok', insurance_type='full', booking_id='b2', insurance_cost=100, card_id='card1')",
        "purchase_insurance(access_token='tok', insurance_type='full', booking_id='b2', insurance_cost=5000, card_id='card1')",
        "purchase_insurance(access_token='tok', insurance_type='full', booking_id='zz', insurance_cost=1, card_id='card1')",
        "contact_customer_support(booking_id='b2', message='help')", "contact_customer_support(booking_id='zz', message='help')",
        "get_all_credit_cards()", "list_all_airports()", "travel_get_login_status()",
        "register_credit_card(access_token='tok', card_number='4999', expiration_date='1/30', cardholder_name='Ann Lee', card_verification_number=1)",
        "authenticate_travel(client_id='c', client_secret='s', refresh_token='r', grant_type='read_write', user_first_name='Ann', user_last_name='Lee')",
        "get_credit_card_balance(access_token='tok', card_id='card1')",
    ]},
    {"name": "vehicle", "classes": ["VehicleControlAPI"], "config": {"VehicleControlAPI": {}}, "calls": [
        "displayCarStatus(option='doors')", "startEngine(ignitionMode='START')",
        "lockDoors(unlock=False, door=['driver', 'passenger', 'rear_left', 'rear_right'])", "startEngine(ignitionMode='START')",
        "pressBrakePedal(pedalPosition=0.5)", "startEngine(ignitionMode='START')", "pressBrakePedal(pedalPosition=1)",
        "startEngine(ignitionMode='BOOST')", "startEngine(ignitionMode='START')", "pressBrakePedal(pedalPosition=2)",
        "releaseBrakePedal()", "pressBrakePedal(pedalPosition=0)", "fillFuelTank(fuelAmount=10)", "fillFuelTank(fuelAmount=45)",
        "fillFuelTank(fuelAmount=-1)", "fillFuelTank(fuelAmount=12.5)", "adjustClimateControl(temperature=70, unit='fahrenheit')",
        "adjustClimateControl(temperature=22, fanSpeed=101)", "adjustClimateControl(temperature=21.5, fanSpeed=30, mode='cool')",
        "get_outside_temperature_from_google()", "get_outside_temperature_from_google()", "get_outside_temperature_from_weather_com()",
        "setHeadlights(mode='auto')", "setHeadlights(mode='on')", "setHeadlights(mode='blink')", "activateParkingBrake(mode='engage')",
        "activateParkingBrake(mode='x')", "setCruiseControl(speed=65, activate=True, distanceToNextVehicle=100)",
        "setCruiseControl(speed=63, activate=True, distanceToNextVehicle=50)", "setCruiseControl(speed=60, activate=False, distanceToNextVehicle=30)",
        "get_current_speed()", "display_log(messages=['a', 'b'])", "estimate_drive_feasibility_by_mileage(distance=100)",
        "estimate_drive_feasibility_by_mileage(distance=10000)", "liter_to_gallon(liter=10)", "gallon_to_liter(gallon=3)",
        "estimate_distance(cityA='83214', cityB='74532')", "estimate_distance(cityA='74532', cityB='83214')", "estimate_distance(cityA='x', cityB='y')",
        "get_zipcode_based_on_city(city='Rivermist')", "get_zipcode_based_on_city(city='Nowhere')", "set_navigation(destination='Home')",
        "set_navigation(destination=5)", "check_tire_pressure()", "find_nearest_tire_shop()", "lockDoors(unlock=True, door=['driver'])",
        "lockDoors(unlock=False, door=['trunk'])", "startEngine(ignitionMode='STOP')", "displayCarStatus(option='climate')",
        "displayCarStatus(option='parkingBrake')", "displayCarStatus(option='brakePedal')", "displayCarStatus(option='engine')",
        "displayCarStatus(option='fuel')", "displayCarStatus(option='battery')", "displayCarStatus(option='headlights')",
        "displayCarStatus(option='bogus')", "activateParkingBrake(mode='release')",
        "setCruiseControl(speed=50, activate=True, distanceToNextVehicle=20)",
    ]},
    {"name": "long context: file system", "classes": ["GorillaFileSystem"], "long_context": True, "config": {"GorillaFileSystem": {
        "root": {"r": {"type": "directory", "contents": {"log.txt": {"type": "file", "content": "a\nb"},
                                                          "other.txt": {"type": "file", "content": "c"},
                                                          "d": {"type": "directory", "contents": {}}}}}}},
     "calls": ["ls()", "cat(file_name='other.txt')", "cat(file_name='log.txt')", "cd(folder='d')", "ls()", "du()", "tail(file_name='log.txt')"]},
    {"name": "long context: trading", "classes": ["TradingBot"], "long_context": True, "config": {"TradingBot": {"authenticated": True}}, "calls": [
        "get_stock_info(symbol='AAPL')", "get_order_details(order_id=12345)", "get_watchlist()", "get_transaction_history()",
        "get_available_stocks(sector='Automobile')", "fund_account(amount=10)", "get_transaction_history(start_date='2024-09-01')"]},
    {"name": "long context: travel", "classes": ["TravelAPI"], "long_context": True, "config": {"TravelAPI": TRAVEL}, "calls": [
        "get_all_credit_cards()", "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-11-15', travel_class='economy')",
        "book_flight(access_token='tok', card_id='card1', travel_date='2024-11-15', travel_from='SFO', travel_to='LAX', travel_class='economy')",
        "book_flight(access_token='tok', card_id='card1', travel_date='2024-11-15', travel_from='ATV', travel_to='GFD', travel_class='first')",
        "get_booking_history(access_token='tok')"]},
    {"name": "long context: vehicle", "classes": ["VehicleControlAPI"], "long_context": True, "config": {"VehicleControlAPI": {}}, "calls": [
        "displayCarStatus(option='fuel')", "estimate_distance(cityA='83214', cityB='74532')", "activateParkingBrake(mode='engage')",
        "get_outside_temperature_from_google()", "check_tire_pressure()"]},
]


def numeric_sweep():
    """Seeded logarithm / square_root / round calls across magnitudes and precisions."""
    import random
    rng = random.Random(20260323)
    calls = []
    for _ in range(60):
        value = rng.choice([rng.randint(1, 10 ** rng.randint(1, 12)), round(rng.uniform(0.0001, 1e6), rng.randint(0, 8))])
        base = rng.choice([2, 10, 3, 0.5, 1.5, rng.randint(2, 1000)])
        calls.append(f"logarithm(value={value!r}, base={base!r}, precision={rng.randint(1, 60)})")
    for _ in range(40):
        number = rng.choice([rng.randint(0, 10 ** rng.randint(1, 20)), round(rng.uniform(0, 1e4), rng.randint(0, 6)), rng.randint(1, 99) ** 2])
        calls.append(f"square_root(number={number!r}, precision={rng.randint(1, 40)})")
    for _ in range(30):
        x = round(rng.uniform(-1e5, 1e5), rng.randint(0, 6))
        calls.append(f"round_number(number={x!r}, decimal_places={rng.randint(-3, 5)})")
    return calls


CASES.append({"name": "math: numeric sweep", "classes": ["MathAPI"], "config": {}, "calls": numeric_sweep()})

LONG = 500


def run_case(index):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.gorilla_file_system import Directory, File

    def ser(v):
        if isinstance(v, Directory):
            return {"__type": "Directory", "name": v.name, "contents": {k: ser(x) for k, x in v.contents.items()}}
        if isinstance(v, File):
            return {"__type": "File", "name": v.name, "content": ser(v.content)}
        if isinstance(v, set):
            return {"__set": sorted(ser(x) for x in v)}
        if isinstance(v, dict):
            return {str(k): ser(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [ser(x) for x in v]
        return v

    case = CASES[index]
    long_context = case.get("long_context", False)
    results, state_hashes, state = [], [], None
    for call in case["calls"]:
        [result], instances = execute_multi_turn_func_call(
            [call], json.loads(json.dumps(case["config"])), case["classes"], "fixture", f"case_{index}",
            long_context=long_context, is_evaL_run=False)
        results.append(result if len(result) <= LONG else "sha256:" + hashlib.sha256(result.encode()).hexdigest())
        state = {c: {k: ser(v) for k, v in vars(i).items() if not k.startswith("_")} for c, i in instances.items()}
        text = json.dumps(state, sort_keys=True)
        state_hashes.append(hashlib.sha256(text.encode()).hexdigest())
    out = {"name": case["name"], "classes": case["classes"], "long_context": long_context, "config": case["config"],
           "calls": case["calls"], "results": results, "state_sha256": state_hashes}
    if not long_context:
        out["final_state"] = state
    return out


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(int(sys.argv[2]))))
        return
    extra = sys.argv[1:2]
    env_path = ":".join(extra)
    cases = []
    for i in range(len(CASES)):
        env = dict(**__import__("os").environ)
        if env_path:
            env["PYTHONPATH"] = env_path + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        done = subprocess.run([sys.executable, __file__, "--case", str(i)], capture_output=True, text=True, env=env, check=True)
        cases.append(json.loads(done.stdout))
    target = Path(__file__).with_name("api_fixture.json")
    target.write_text(json.dumps({"upstream": "bfcl-eval==2026.3.23", "python": sys.version.split()[0], "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
